// The streams' metrics in Prometheus' text format (0.0.4), fed by the progress records of the
// run (and, at start, by the progress logs, so that a restart does not blank the dashboards).
// Per stream: rows in and out, rates, lag per partition, watermark, state rows and bytes, late
// and duplicate drops, failures, a batch-duration histogram, and the falling-behind alert.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engine/batch_progress.h"
#include "pipeline/pipeline.h"

namespace lakestream {

class Metrics {
 public:
  // Starts from what the streams' progress logs hold.
  explicit Metrics(const Pipeline& pipeline);

  // Takes in one batch or failure (thread-safe).
  void observe(const BatchProgress& batch);

  // The exposition text, for GET /metrics (thread-safe).
  std::string render() const;

  // The upper bounds (seconds) of the batch-duration histogram's buckets, +Inf aside.
  static const std::vector<double>& duration_buckets();

 private:
  struct StreamMetrics {
    int64_t batches = 0, failures = 0, input_rows = 0, output_rows = 0;
    int64_t late_dropped = 0, duplicates_dropped = 0, quarantined = 0;
    double input_rate = 0, processed_rate = 0;
    int64_t watermark_us = 0, max_event_time_us = 0;
    bool has_event_time = false;
    int64_t state_rows = 0, state_bytes = 0;
    std::map<std::string, int64_t> lag;  // partition (or "table") -> offsets or versions behind
    std::map<std::string, int64_t> millis_behind;  // Kinesis: shard number -> ms behind its tip
    std::vector<int64_t> bucket_counts;  // cumulative counts per bucket are computed on render
    double duration_sum = 0;
    std::deque<BatchProgress> recent;    // for the falling-behind alert
    double target_latency_seconds = 0;   // 0: none
    std::optional<double> input_wait_seconds;  // the last batch's oldest input's wait
  };

  void observe_locked(const BatchProgress& batch);

  mutable std::mutex mu_;
  std::map<std::string, StreamMetrics> streams_;
};

}  // namespace lakestream
