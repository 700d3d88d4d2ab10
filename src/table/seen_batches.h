// Which source batch each row of a window table had seen when its window was written: check
// tells a late window (its events arrived after it was written) from a wrong one by it. A window
// stream's commit records the newest source batch it had seen (commitInfo.lakestream's
// sourceMaxBatchId), and notes the same in a tag on each file it writes. Compaction merges files
// written by many commits into one, so the merged file's tag lists runs of rows instead:
//   add.tags["lakestream.sourceMaxBatchId"] = "0:17"          one file, every row had seen batch 17
//                                             "0:17,250:19"   rows 0-249 had seen 17, 250 on 19
// A tag (unlike the commit) survives log checkpoints and the cleanup of old commits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream::delta {

constexpr const char* kSeenBatchesTag = "lakestream.sourceMaxBatchId";

// Rows from `first_row` (their index in the file, as deletion vectors count them) up to the next
// run's first row, or the file's end, had seen source batches up to `batch`.
struct SeenBatchRun {
  int64_t first_row = 0;
  int64_t batch = 0;
  bool operator==(const SeenBatchRun&) const = default;
};

std::string seen_batches_text(const std::vector<SeenBatchRun>& runs);

// The file's runs; none without the tag (a file written before tags, or by another engine) or
// when the tag is not runs in increasing row order from row 0.
std::optional<std::vector<SeenBatchRun>> seen_batches_of(const AddFile& file);

}  // namespace lakestream::delta
