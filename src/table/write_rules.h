// What a Delta writer of version 2 and 3 owes the table: an append-only table loses no rows, and
// no row a commit adds breaks a NOT NULL column, a column invariant or a CHECK constraint.
#pragma once

#include <string>
#include <vector>

#include "table/delta_log_json.h"
#include "table/delta_table.h"

namespace lakestream::delta {

// Throws Error when `removes` would change or delete data of an append-only table
// (delta.appendOnly = true): a remove with dataChange = true. Compaction (dataChange = false) is
// allowed. `operation` names the command in the message.
void check_removes_allowed(const Protocol& protocol, const Metadata& metadata, const std::vector<RemoveFile>& removes,
                           const std::string& operation, const std::string& table_path);

// Throws Error naming the rule and a row when a file of `adds` (with dataChange) holds a row that
// breaks a NOT NULL column, a `delta.invariants` expression or a `delta.constraints.*` CHECK
// constraint; the expressions are evaluated by DuckDB, and one it cannot evaluate stops the
// commit too (an unchecked rule is never taken as kept). Invariants of nested fields are refused.
void check_added_rows(const Protocol& protocol, const Metadata& metadata, const std::vector<AddFile>& adds,
                      const Table& table);

}  // namespace lakestream::delta
