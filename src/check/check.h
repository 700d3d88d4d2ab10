// `lakestream check`: recomputes every streamed table from the raw (bronze) table with ordinary
// batch queries and tells, line by line: ok, note, late (dropped by the watermark, by design),
// PROBLEM (counted twice, lost, or wrong) and waiting (not final yet).
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "table/file_pruning.h"

namespace lakestream {

struct CheckLine {
  std::string verdict;  // ok | note | late | PROBLEM | waiting | LIMIT (a data-quality limit broken)
  std::string text;
};

struct CheckResult {
  std::vector<CheckLine> lines;
  bool has_problem() const;  // a PROBLEM or a LIMIT: check exits with 1
};

// Checks every table the pipeline streams, in dependency order. With a time range, window tables
// are checked for the windows in it only, reading only the files of them and of their source that
// can hold those times; latest tables, which need all their source, are left out with a note.
CheckResult check_pipeline(const Pipeline& pipeline, const delta::TimeRange& range = {});

// "ok      bronze_orders has 11 events, each offset once\n...": the verdict padded to 8 columns.
std::string format_check(const CheckResult& result);

}  // namespace lakestream

namespace lakestream {

// The latest check result is kept beside the checkpoints (check-latest.json), for the status
// dashboard: {"at": "...Z", "problem": bool, "lines": [{"verdict", "text"}, ...]}.
void save_check_result(const Pipeline& pipeline, const CheckResult& result, const std::string& at);
// Where it is kept.
std::string check_result_path(const Pipeline& pipeline);

}  // namespace lakestream
