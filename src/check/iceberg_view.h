// check's look at a table's Iceberg view (table/iceberg_metadata.h): the view version-hint.text
// names must be of the table's newest version and list as many files and rows as that version
// has; a view one version behind (a crash after a commit, before its view) is a note, since the
// next commit or run writes it.
#pragma once

#include <string>
#include <vector>

#include "check/check.h"
#include "table/delta_table.h"

namespace lakestream {

// The lines for `table` (as of `snapshot`); none when the table asks for no Iceberg view.
std::vector<CheckLine> check_iceberg_view(const std::string& table, const delta::Snapshot& snapshot);

}  // namespace lakestream
