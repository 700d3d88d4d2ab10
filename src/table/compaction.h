// Compaction (`lakestream optimize`): many small data files rewritten as few files of a target
// size, in one commit whose adds and removes say dataChange=false, as Delta's OPTIMIZE does: the
// table holds the same rows, and streaming readers skip the commit instead of reading them again.
#pragma once

#include <cstdint>
#include <string>

#include "sql/duckdb.h"

namespace lakestream::delta {

struct CompactionResult {
  int64_t version = -1;        // the commit's version; -1 when nothing needed compacting
  int64_t files_removed = 0;
  int64_t files_added = 0;
  int64_t bytes_removed = 0;
  int64_t bytes_added = 0;
};

// Packs the files of each partition smaller than `target_bytes` into groups of at most
// `target_bytes` (in the order they were added) and rewrites every group of two or more as one
// file. Publishes with put-if-absent: when another writer commits first and only added files, the
// same commit goes on top of it; when it removed one of the compacted files, the work is redone
// on the new snapshot. A crash before the commit leaves only unreferenced files.
CompactionResult compact_table(sql::Connection& con, const std::string& table_path, int64_t target_bytes);

}  // namespace lakestream::delta
