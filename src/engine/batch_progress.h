// A batch's progress as the observers see it (status, metrics, the dashboard, the falling-behind
// alert): typed, from the run's own report while it runs, or decoded from the progress log
// (engine/progress_record.h writes it; decode_progress is the only reader of its keys).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "streams/batch_report.h"

namespace lakestream {

struct BatchProgress {
  std::string stream;
  std::string timestamp;                 // when the batch started, as the record shows it
  std::optional<int64_t> started_at_us;  // the same in microseconds; nullopt when unreadable
  std::optional<std::string> failure;    // a failed run: its message (the counts below are 0)
  int64_t batch_id = -1;
  int64_t input_rows = 0;
  int64_t output_rows = 0;
  double input_rows_per_second = 0;      // rows over the time since the previous batch started
  double processed_rows_per_second = 0;  // rows over the batch's own duration
  int64_t quarantined = 0;
  int64_t late_dropped = 0;
  int64_t duplicates_dropped = 0;
  std::optional<int64_t> watermark_us;   // streams with event time (window streams)
  std::optional<int64_t> max_event_time_us;
  std::optional<StateReport> state;
  int64_t duration_ms = 0;               // the whole batch (Spark's triggerExecution)
  std::optional<int64_t> input_wait_ms;  // how long its oldest input waited for the commit
  // Behind the newest input when the batch was planned: offsets per Kafka partition, or versions
  // of the source table under "table".
  std::map<std::string, int64_t> lag;
  // A Kinesis ingest batch: shard number -> how far its last read was behind the shard's tip (ms).
  std::map<std::string, int64_t> millis_behind;
  std::optional<int64_t> end_version;    // streams reading a table: the last version read
  // An ingest worker's batch: which worker ("host:pid") and the partitions it held.
  std::string worker;
  std::string partitions_held;

  int64_t total_lag() const;
};

// The run's batch, typed; `previous_start_us` is when the stream's previous batch started.
BatchProgress batch_progress(const StreamReport& stream, const BatchReport& batch,
                             std::optional<int64_t> previous_start_us);
// A failed run of `stream`.
BatchProgress failure_progress(const std::string& stream, const std::string& message);
// A record of the progress log; a record that lacks fields gives zeros for them.
BatchProgress decode_progress(const nlohmann::json& record);

// Rows over seconds, 0 when no time passed.
double per_second(int64_t rows, double seconds);
// The input rate of a batch: rows over the time since the previous batch started (without one,
// over the batch's own duration, as Spark reports it).
double input_rate(const BatchReport& batch, std::optional<int64_t> previous_start_us);
// Offsets (per partition, as {"0": n, ...}) or versions (one number, under "table") from `end`
// to `latest`.
std::map<std::string, int64_t> lag_behind(const nlohmann::json& end, const nlohmann::json& latest);

}  // namespace lakestream
