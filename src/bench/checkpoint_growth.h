// The checkpoints workload: what a checkpoint costs a table that holds a week of a service's
// tombstones (each small file compaction replaced is one, kept delta.deletedFileRetentionDuration),
// written the classic way (every tombstone again at every checkpoint) and with v2 checkpoints'
// sidecars (table/checkpoint_sidecars.h: the tombstones since the checkpoint before, the older ones
// named again).
#pragma once

#include <cstdint>
#include <string>

namespace lakestream::bench {

struct CheckpointCost {
  double seconds = 0;
  double cpu_seconds = 0;  // the process's, DuckDB's threads included
  // The process's peak resident memory during the checkpoint (its high-water mark reset before
  // it; 0 where the kernel does not allow that).
  double peak_rss_mib = 0;
};

struct CheckpointGrowth {
  CheckpointCost first;  // the first checkpoint of the table with its tombstones
  CheckpointCost next;   // the one 10 commits later, each commit compacting one file into another
};

// Builds the table at `table_path` (which must not exist) with `tombstones` tombstones and the
// checkpoint policy `policy` ("classic" or "v2"), and times its checkpoints. The data files are
// named, not written: a checkpoint reads none.
CheckpointGrowth measure_checkpoint_growth(const std::string& table_path, const std::string& policy, int64_t tombstones);

}  // namespace lakestream::bench
