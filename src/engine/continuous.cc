#include "engine/continuous.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "util/error.h"
#include "util/files.h"
#include "util/stop.h"

namespace lakestream {

int run_continuously(const Pipeline& pipeline, RunOptions options, const ContinuousOptions& continuous,
                     std::ostream& out, std::ostream& err) {
  install_stop_signals();
  if (options.run_id.empty()) options.run_id = new_uuid();  // one run id for the life of the process
  int failures_in_a_row = 0;
  double idle_wait = 0;
  while (!stop_requested()) {
    auto started = std::chrono::steady_clock::now();
    double wait = 0;
    try {
      std::vector<StreamReport> reports = run_pipeline(pipeline, options, out);
      failures_in_a_row = 0;
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      wait = std::max(0.0, continuous.interval_us / 1e6 - elapsed);
      if (continuous.interval_us == 0) {
        bool found_work = std::any_of(reports.begin(), reports.end(), [](const StreamReport& r) {
          return std::any_of(r.batches.begin(), r.batches.end(), [](const BatchReport& b) { return b.input_rows > 0; });
        });
        idle_wait = found_work ? 0 : std::min(continuous.max_idle_seconds,
                                              idle_wait == 0 ? continuous.first_idle_seconds : idle_wait * 2);
        wait = idle_wait;
      }
    } catch (const Error& e) {
      failures_in_a_row++;
      wait = std::min(continuous.max_retry_seconds,
                      continuous.first_retry_seconds * std::pow(2.0, failures_in_a_row - 1));
      char retry[96];
      std::snprintf(retry, sizeof retry, "; retrying in %.0f s (failure %d in a row)", wait, failures_in_a_row);
      err << "lakestream: " << e.what() << retry << "\n" << std::flush;
    }
    if (sleep_unless_stopped(wait)) break;
  }
  out << "stopped on request; every batch that started was finished and committed\n" << std::flush;
  return failures_in_a_row;
}

}  // namespace lakestream
