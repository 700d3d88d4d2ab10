// Compaction (`lakestream optimize`): many small data files rewritten as few files of a target
// size, in one commit whose adds and removes say dataChange=false, as Delta's OPTIMIZE does: the
// table holds the same rows, and streaming readers skip the commit instead of reading them again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sql/duckdb.h"
#include "table/delta_table.h"

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
// file; a file with a deletion vector is rewritten whatever its size, without its deleted rows
// (OPTIMIZE purges the vectors). Publishes with put-if-absent: when another writer commits first and only added files, the
// same commit goes on top of it; when it removed one of the compacted files, the work is redone
// on the new snapshot. A crash before the commit leaves only unreferenced files.
// `keep_seen_batches` (a window table): only files tagged with the source batch their rows had
// seen are merged, in file and row order, and the merged file's tag keeps it per row
// (table/seen_batches.h), for check to tell late windows from wrong ones.
CompactionResult compact_table(sql::Connection& con, const Table& table, int64_t target_bytes,
                               bool keep_seen_batches = false);

// Compaction while streams write a table (auto compaction): cheap enough to run after every few
// batches, and bounded in what it rewrites. The small files of a partition (under half the target
// size: two larger ones would not fit in one) fall in size tiers a factor `min_files` apart, counted down from the target:
// [target/m, target), [target/m^2, target/m), ... When one tier holds `min_files` files, they are
// merged (packed up to the target), so each merge makes a file about one tier up. A partition
// then keeps fewer than `min_files` files per tier: a few dozen small files at most, however
// long the stream runs, and each byte is rewritten once per tier (a handful of times), not at
// every compaction.
struct AutoCompaction {
  int64_t target_bytes = 128LL << 20;
  int64_t min_files = 10;
};

// The table's own settings over the pipeline's, as Delta writers honour them: the property
// `delta.autoOptimize.autoCompact` = false turns compaction off (nullopt), as does
// `delta.enableRowTracking` = true (a merge would have to keep each row's id), and
// `delta.targetFileSize` (bytes, or a size such as "64mb") sets the target.
std::optional<AutoCompaction> table_auto_compaction(const std::map<std::string, std::string>& configuration,
                                                    AutoCompaction pipeline_settings);

// The groups of files auto compaction merges now in `snapshot` (none when no tier is full).
std::vector<std::vector<AddFile>> due_compactions(const Snapshot& snapshot, const AutoCompaction& settings);

// Which of the due groups a compaction merges: those of less than kSmallGroupBytes in all are
// quick (well under a second), the others rewrite tens of megabytes.
enum class GroupsTaken { All, Small, Large };
constexpr int64_t kSmallGroupBytes = 8LL << 20;
std::vector<std::vector<AddFile>> groups_taken(std::vector<std::vector<AddFile>> groups, GroupsTaken taken);

// Merges what due_compactions finds (of the groups `taken`), committed as compact_table commits
// (dataChange=false, conflicts redone); the table's properties apply (table_auto_compaction).
CompactionResult compact_small_files(sql::Connection& con, const Table& table,
                                     AutoCompaction pipeline_settings, GroupsTaken taken = GroupsTaken::All,
                                     bool keep_seen_batches = false);

}  // namespace lakestream::delta
