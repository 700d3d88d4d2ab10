// `lakestream check`: recomputes every streamed table from the raw (bronze) table with ordinary
// batch queries and tells, line by line: ok, note, late (dropped by the watermark, by design),
// PROBLEM (counted twice, lost, or wrong) and waiting (not final yet).
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"

namespace lakestream {

struct CheckLine {
  std::string verdict;  // ok | note | late | PROBLEM | waiting
  std::string text;
};

struct CheckResult {
  std::vector<CheckLine> lines;
  bool has_problem() const;
};

// Checks every table the pipeline streams, in dependency order.
CheckResult check_pipeline(const Pipeline& pipeline);

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
