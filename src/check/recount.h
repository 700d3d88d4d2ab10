// `lakestream recount`: the nightly batch. Rewrites every written window of each window stream's
// table with the batch recount of its source (late events included), in one Delta commit per
// table, and leaves the windows not yet written to the stream. Running it again changes nothing.
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "table/file_pruning.h"

namespace lakestream {

struct RecountChange {
  std::string table;
  std::string window;  // its label, the group after the start as check says it: "09:00 US purchase"
  std::string before;  // "3 orders, 68.50"
  std::string after;   // "4 orders, 90.50"
};

// Recounts the tables of the window streams named (all when empty); returns what changed. With a
// time range, only the windows in it are recounted, from only the files that can hold them, and
// only the table's files holding such windows are rewritten. Its DuckDB takes at most
// `memory_limit` bytes (0: sql::default_memory_budget()) and spills the rest under $TMPDIR.
std::vector<RecountChange> recount_pipeline(const Pipeline& pipeline, const std::vector<std::string>& streams,
                                            const delta::TimeRange& range = {}, int64_t memory_limit = 0);

}  // namespace lakestream
