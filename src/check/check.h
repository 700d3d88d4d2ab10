// `lakestream check`: recomputes every streamed table from the raw (bronze) table with ordinary
// batch queries and tells, line by line: ok, note, late (dropped by the watermark, by design),
// PROBLEM (counted twice, lost, or wrong), waiting (not final yet), LIMIT and error.
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "table/file_pruning.h"

namespace lakestream {

struct CheckLine {
  // ok | note | late | PROBLEM | waiting | LIMIT (a data-quality limit broken) | error (check
  // could not check a table: the line names it and says why)
  std::string verdict;
  std::string text;
  // Behind a window's late or PROBLEM line: up to 3 of the records that make it up
  // ("PARTITION:OFFSET"), the window as `lakestream why --window` takes it
  // ("hourly_sales 2026-10-01 09:00"), and that command, which lists them all.
  std::vector<std::string> examples;
  std::string window;
  std::string why;
};

// A line with no examples: `verdict` and `text`.
inline CheckLine check_line(const std::string& verdict, const std::string& text) {
  CheckLine line;
  line.verdict = verdict;
  line.text = text;
  return line;
}

struct CheckResult {
  std::vector<CheckLine> lines;
  bool has_problem() const;  // a PROBLEM or a LIMIT
  bool has_error() const;    // an error line
  // 1 with a PROBLEM or a LIMIT, else 2 with an error, else 0.
  int exit_code() const;
};

// Checks every table the pipeline streams, in dependency order; a table it cannot check gets an
// error line and the others are checked on. With a time range, window tables
// are checked for the windows in it only, reading only the files of them and of their source that
// can hold those times; latest tables, which need all their source, are left out with a note.
// Its DuckDB takes at most `memory_limit` bytes (0: sql::default_memory_budget()) and spills the
// rest to a folder under $TMPDIR, so that a long run's bronze is checked within a bound.
CheckResult check_pipeline(const Pipeline& pipeline, const delta::TimeRange& range = {}, int64_t memory_limit = 0);

// "ok      bronze_orders has 11 events, each offset once\n...": the verdict padded to 8 columns.
// With `examples`, a line with records behind it is followed by one naming them:
// "        e.g. 0:2; lakestream why --window \"hourly_sales 2026-10-01 09:00\"".
std::string format_check(const CheckResult& result, bool examples = false);

}  // namespace lakestream

namespace lakestream {

// The latest check result is kept beside the checkpoints (check-latest.json), for the status
// dashboard: {"at": "...Z", "problem": bool, "lines": [{"verdict", "text", "examples"?, "window"?, "why"?}, ...]}.
void save_check_result(const Pipeline& pipeline, const CheckResult& result, const std::string& at);
// Where it is kept.
std::string check_result_path(const Pipeline& pipeline);

}  // namespace lakestream
