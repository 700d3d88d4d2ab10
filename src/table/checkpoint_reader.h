// Reading a Delta checkpoint: a classic one (one Parquet file, or several parts, with one action
// per row in the columns txn, add, remove, metaData, protocol, ...) or a v2 one (a top-level
// Parquet or JSON file of the other actions, and sidecar Parquet files of the adds and removes).
#pragma once

#include <string>
#include <vector>

#include "storage/object_store.h"
#include "table/delta_log_json.h"

namespace lakestream::delta {

// How much of a checkpoint to read: all of it; all but the sidecars that hold only tombstones
// (lakestream's tagged ones, table/checkpoint_sidecars.h: a reader of the table's files has no use
// for a week of removes); or its top-level file alone, its sidecars listed but not read.
enum class CheckpointRead { kWhole, kWithoutTombstoneSidecars, kTopLevel };

// The actions of the checkpoint of the table at `table` made of the log files `parts` (keys
// in the table, as listed), its sidecars' actions included (the sidecars themselves are left out
// of the result) unless `read` is kTopLevel. Throws Error naming the file when one cannot be read
// or a row is malformed.
LogActions read_checkpoint(const Table& table, const std::vector<storage::ObjectInfo>& parts,
                           CheckpointRead read = CheckpointRead::kWhole);

}  // namespace lakestream::delta
