#include "engine/continuous.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "util/error.h"
#include "util/files.h"
#include "util/log_time.h"
#include "util/stop.h"

namespace lakestream {

int run_continuously(const Pipeline& pipeline, RunOptions options, const ContinuousOptions& continuous,
                     std::ostream& out, std::ostream& err) {
  install_stop_signals();
  if (options.run_id.empty()) options.run_id = new_uuid();  // one run id for the life of the process
  options.service_log = true;
  options.progress_bar = false;
  out << log_time_now() << " running " << pipeline.path << " every " << continuous.interval_us / 1000000.0
      << " s until SIGTERM or Ctrl-C\n" << std::flush;
  int failures_in_a_row = 0;
  int64_t batches_since_heartbeat = 0;
  auto last_heartbeat = std::chrono::steady_clock::now();
  while (!stop_requested()) {
    auto started = std::chrono::steady_clock::now();
    double wait = 0;
    try {
      for (const auto& report : run_pipeline(pipeline, options, out)) batches_since_heartbeat += report.batches.size();
      if (started - last_heartbeat >= std::chrono::duration<double>(continuous.heartbeat_seconds)) {
        out << log_time_now() << " alive: " << batches_since_heartbeat << (batches_since_heartbeat == 1 ? " batch" : " batches")
            << " in the last " << continuous.heartbeat_seconds << " s\n" << std::flush;
        batches_since_heartbeat = 0;
        last_heartbeat = started;
      }
      failures_in_a_row = 0;
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      wait = std::max(0.0, continuous.interval_us / 1e6 - elapsed);
    } catch (const Error& e) {
      failures_in_a_row++;
      wait = std::min(continuous.max_retry_seconds,
                      continuous.first_retry_seconds * std::pow(2.0, failures_in_a_row - 1));
      char retry[96];
      std::snprintf(retry, sizeof retry, "; retrying in %.0f s (failure %d in a row)", wait, failures_in_a_row);
      err << log_time_now() << " lakestream: " << e.what() << retry << "\n" << std::flush;
    }
    if (sleep_unless_stopped(wait)) break;
  }
  out << log_time_now() << " stopped on request; every batch that started was finished and committed\n" << std::flush;
  return failures_in_a_row;
}

}  // namespace lakestream
