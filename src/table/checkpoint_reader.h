// Reading a Delta checkpoint: a classic one (one Parquet file, or several parts, with one action
// per row in the columns txn, add, remove, metaData, protocol, ...) or a v2 one (a top-level
// Parquet or JSON file of the other actions, and sidecar Parquet files of the adds and removes).
#pragma once

#include <string>
#include <vector>

#include "storage/object_store.h"
#include "table/delta_log_json.h"

namespace lakestream::delta {

// The actions of the checkpoint of the table at `table` made of the log files `parts` (keys
// in the table, as listed), its sidecars' actions included (the sidecars themselves are left out
// of the result). Throws Error naming the file when one cannot be read or a row is malformed.
LogActions read_checkpoint(const Table& table, const std::vector<storage::ObjectInfo>& parts);

}  // namespace lakestream::delta
