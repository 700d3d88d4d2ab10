// The columns a stream reading a table's change data feed (`read = "changes"`) gets after the
// table's own, as Spark's readChangeFeed names them: what the change was (_change_type: insert,
// update_preimage, update_postimage, delete), the version that made it (_commit_version) and when
// (_commit_timestamp). The pipeline file's checks, the table source and check take them from here.
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"  // Field

namespace lakestream {

inline constexpr const char* kChangeTypeColumn = "_change_type";
inline constexpr const char* kCommitVersionColumn = "_commit_version";
inline constexpr const char* kCommitTimestampColumn = "_commit_timestamp";

// _change_type (string), _commit_version (bigint), _commit_timestamp (timestamp), in that order.
const std::vector<Field>& change_columns();

}  // namespace lakestream
