#include "engine/stop_summary.h"

#include <algorithm>

namespace lakestream {

namespace {

std::string committed_by(const StreamReport& report) {
  const auto& batches = report.batches;
  if (batches.empty()) return report.stream + ": nothing";
  int64_t rows = 0;
  for (const auto& b : batches) rows += b.input_rows;
  std::string which = batches.size() == 1 ? "batch " + std::to_string(batches.front().batch_id)
                                          : "batches " + std::to_string(batches.front().batch_id) + " to " +
                                                std::to_string(batches.back().batch_id);
  return report.stream + ": " + which + " (" + std::to_string(rows) + (rows == 1 ? " row" : " rows") + " in) into " +
         report.table;
}

}  // namespace

std::string stop_summary(const Pipeline& pipeline, const RunOptions& options, const std::vector<StreamReport>& reports) {
  std::string committed, not_run;
  for (const auto& report : reports) {
    committed += "\n  " + committed_by(report);
    if (report.stopped) not_run += "\n  " + report.stream + ": the rest of its input";
  }
  for (const Stream* stream : pipeline.in_dependency_order()) {
    bool chosen = options.streams.empty() ||
                  std::find(options.streams.begin(), options.streams.end(), stream->name) != options.streams.end();
    bool ran = std::any_of(reports.begin(), reports.end(), [&](const StreamReport& r) { return r.stream == stream->name; });
    if (chosen && !ran) not_run += "\n  " + stream->name;
  }
  return "stopped on request, at a batch boundary: every batch that started was committed, exactly once.\n"
         "committed in this run:" + (committed.empty() ? "\n  nothing" : committed) +
         "\nnot run:" + (not_run.empty() ? "\n  nothing" : not_run) +
         "\nrun again to go on from there.\n";
}

}  // namespace lakestream
