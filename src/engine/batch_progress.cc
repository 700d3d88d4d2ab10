#include "engine/batch_progress.h"

#include <algorithm>

#include "engine/progress_record.h"

namespace lakestream {

double per_second(int64_t rows, double seconds) { return seconds > 0 ? rows / seconds : 0.0; }

double input_rate(const BatchReport& b, std::optional<int64_t> previous_start_us) {
  double since_previous = previous_start_us ? (b.started_at_us - *previous_start_us) / 1e6 : 0;
  return per_second(b.input_rows, since_previous > 0 ? since_previous : b.seconds);
}

std::map<std::string, int64_t> lag_behind(const nlohmann::json& end, const nlohmann::json& latest) {
  std::map<std::string, int64_t> lag;
  if (latest.is_number() && end.is_number()) {
    lag["table"] = std::max<int64_t>(0, latest.get<int64_t>() - end.get<int64_t>());
  } else if (latest.is_object()) {
    for (const auto& [partition, high] : latest.items()) {
      int64_t done = end.is_object() && end.contains(partition) ? end[partition].get<int64_t>() : 0;
      lag[partition] = std::max<int64_t>(0, high.get<int64_t>() - done);
    }
  }
  return lag;
}

int64_t BatchProgress::total_lag() const {
  int64_t total = 0;
  for (const auto& [partition, behind] : lag) total += behind;
  return total;
}

BatchProgress batch_progress(const StreamReport& stream, const BatchReport& b, std::optional<int64_t> previous_start_us) {
  BatchProgress p;
  p.stream = stream.stream;
  p.timestamp = iso_timestamp(b.started_at_us);
  p.started_at_us = b.started_at_us;
  p.batch_id = b.batch_id;
  p.input_rows = b.input_rows;
  p.output_rows = b.output_rows;
  p.input_rows_per_second = input_rate(b, previous_start_us);
  p.processed_rows_per_second = per_second(b.input_rows, b.seconds);
  p.quarantined = b.quarantined;
  p.late_dropped = b.late_dropped;
  p.duplicates_dropped = b.duplicates_dropped;
  if (b.event_time || (b.state && b.state->operator_name == "windowAggregate")) p.watermark_us = b.watermark_us;
  if (b.event_time) p.max_event_time_us = b.event_time->max_us;
  p.state = b.state;
  auto total = b.durations_ms.find("triggerExecution");
  p.duration_ms = total == b.durations_ms.end() ? 0 : total->second;
  p.input_wait_ms = b.input_wait_ms;
  p.lag = lag_behind(b.end_offset, b.latest_offset);
  for (const auto& [shard, ms] : b.millis_behind_latest) p.millis_behind[std::to_string(shard)] = ms;
  if (b.end_offset.is_number()) p.end_version = b.end_offset.get<int64_t>();
  p.worker = stream.worker;
  p.partitions_held = stream.partitions_held;
  return p;
}

BatchProgress failure_progress(const std::string& stream, const std::string& message) {
  return decode_progress(failure_record(stream, "", message));
}

BatchProgress decode_progress(const nlohmann::json& r) {
  BatchProgress p;
  p.stream = r.value("name", "");
  p.timestamp = r.value("timestamp", "");
  p.started_at_us = parse_iso_timestamp(p.timestamp);
  if (r.contains("failure")) {
    p.failure = r["failure"].value("message", "");
    return p;
  }
  p.batch_id = r.value("batchId", int64_t{-1});
  p.worker = r.value("worker", "");
  p.partitions_held = r.value("partitionsHeld", "");
  p.input_rows = r.value("numInputRows", int64_t{0});
  p.input_rows_per_second = r.value("inputRowsPerSecond", 0.0);
  p.processed_rows_per_second = r.value("processedRowsPerSecond", 0.0);
  const nlohmann::json none = nlohmann::json::object();
  const auto& sink = r.contains("sink") ? r["sink"] : none;
  p.output_rows = sink.value("numOutputRows", int64_t{0});
  const auto& own = r.contains("lakestream") ? r["lakestream"] : none;
  p.quarantined = own.value("quarantined", int64_t{0});
  p.late_dropped = own.value("lateDropped", int64_t{0});
  p.duplicates_dropped = own.value("duplicatesDropped", int64_t{0});
  if (r.contains("eventTime")) p.watermark_us = own.value("watermarkUs", int64_t{0});
  if (own.contains("inputWaitMs") && own["inputWaitMs"].is_number_integer())
    p.input_wait_ms = own["inputWaitMs"].get<int64_t>();
  if (own.contains("maxEventTimeUs") && own["maxEventTimeUs"].is_number())
    p.max_event_time_us = own["maxEventTimeUs"].get<int64_t>();
  if (r.contains("stateOperators") && r["stateOperators"].is_array() && !r["stateOperators"].empty()) {
    const auto& op = r["stateOperators"][0];
    StateReport state;
    state.operator_name = op.value("operatorName", std::string("windowAggregate"));
    state.rows_total = op.value("numRowsTotal", int64_t{0});
    state.rows_updated = op.value("numRowsUpdated", int64_t{0});
    state.rows_removed = op.value("numRowsRemoved", int64_t{0});
    state.memory_bytes = op.value("memoryUsedBytes", int64_t{0});
    p.state = state;
  }
  if (r.contains("durationMs")) p.duration_ms = r["durationMs"].value("triggerExecution", int64_t{0});
  if (r.contains("sources") && r["sources"].is_array() && !r["sources"].empty()) {
    const auto& source = r["sources"][0];
    const auto& end = source.contains("endOffset") ? source["endOffset"] : none;
    const auto& latest = source.contains("latestOffset") ? source["latestOffset"] : none;
    p.lag = lag_behind(end, latest);
    if (end.is_number()) p.end_version = end.get<int64_t>();
  }
  if (r.contains("lakestream") && r["lakestream"].contains("millisBehindLatest"))
    for (const auto& [shard, ms] : r["lakestream"]["millisBehindLatest"].items()) p.millis_behind[shard] = ms.get<int64_t>();
  return p;
}

}  // namespace lakestream
