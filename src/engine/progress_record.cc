#include "engine/progress_record.h"

#include <algorithm>
#include <ctime>

#include "engine/batch_progress.h"
#include "table/file_stats.h"

namespace lakestream {

namespace {

// Offsets behind the latest: per Kafka partition, or one number of table versions.
struct Behind {
  int64_t min = 0, max = 0;
  double avg = 0;
};

Behind offsets_behind(const nlohmann::json& end, const nlohmann::json& latest) {
  Behind b;
  auto lag = lag_behind(end, latest);
  if (lag.empty()) return b;
  bool first = true;
  int64_t sum = 0;
  for (const auto& [partition, behind] : lag) {
    b.min = first ? behind : std::min(b.min, behind);
    b.max = first ? behind : std::max(b.max, behind);
    sum += behind;
    first = false;
  }
  b.avg = static_cast<double>(sum) / static_cast<double>(lag.size());
  return b;
}

}  // namespace

std::string iso_timestamp(int64_t epoch_us) { return delta::stats_timestamp(epoch_us, false, true); }

std::optional<int64_t> parse_iso_timestamp(const std::string& text) {
  std::tm parts{};
  int ms = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d.%3dZ", &parts.tm_year, &parts.tm_mon, &parts.tm_mday,
                  &parts.tm_hour, &parts.tm_min, &parts.tm_sec, &ms) != 7)
    return std::nullopt;
  parts.tm_year -= 1900;
  parts.tm_mon -= 1;
  return static_cast<int64_t>(timegm(&parts)) * 1000000 + ms * 1000;
}

nlohmann::json progress_record(const StreamReport& stream, const BatchReport& b, const std::string& run_id,
                               std::optional<int64_t> previous_start_us) {
  nlohmann::json r;
  r["id"] = stream.stream_id;
  r["runId"] = run_id;
  r["name"] = stream.stream;
  if (!stream.partitions_held.empty()) {
    r["worker"] = stream.worker;
    r["partitionsHeld"] = stream.partitions_held;
  }
  r["timestamp"] = iso_timestamp(b.started_at_us);
  r["batchId"] = b.batch_id;
  r["numInputRows"] = b.input_rows;
  r["inputRowsPerSecond"] = input_rate(b, previous_start_us);
  r["processedRowsPerSecond"] = per_second(b.input_rows, b.seconds);
  r["durationMs"] = b.durations_ms;
  if (b.event_time) {
    r["eventTime"] = {{"min", iso_timestamp(b.event_time->min_us)},
                      {"max", iso_timestamp(b.event_time->max_us)},
                      {"avg", iso_timestamp(static_cast<int64_t>(b.event_time->avg_us))},
                      {"watermark", iso_timestamp(b.watermark_us)}};
  } else if (b.state && b.state->operator_name == "windowAggregate") {
    r["eventTime"] = {{"watermark", iso_timestamp(b.watermark_us)}};
  }
  nlohmann::json operators = nlohmann::json::array();
  if (b.state)
    operators.push_back({{"operatorName", b.state->operator_name},
                         {"numRowsTotal", b.state->rows_total},
                         {"numRowsUpdated", b.state->rows_updated},
                         {"numRowsRemoved", b.state->rows_removed},
                         {"numRowsDroppedByWatermark", b.late_dropped},
                         {"numDroppedDuplicateRows", b.duplicates_dropped},
                         {"memoryUsedBytes", b.state->memory_bytes}});
  r["stateOperators"] = operators;
  Behind behind = offsets_behind(b.end_offset, b.latest_offset);
  r["sources"] = nlohmann::json::array({{{"description", stream.source},
                                         {"startOffset", b.start_offset},
                                         {"endOffset", b.end_offset},
                                         {"latestOffset", b.latest_offset},
                                         {"numInputRows", b.input_rows},
                                         {"inputRowsPerSecond", r["inputRowsPerSecond"]},
                                         {"processedRowsPerSecond", r["processedRowsPerSecond"]},
                                         {"minOffsetsBehindLatest", behind.min},
                                         {"avgOffsetsBehindLatest", behind.avg},
                                         {"maxOffsetsBehindLatest", behind.max}}});
  if (!b.millis_behind_latest.empty()) {
    // As Databricks' Kinesis source reports it (strings, in the source's metrics).
    int64_t min = INT64_MAX, max = 0, sum = 0;
    for (const auto& [shard, ms] : b.millis_behind_latest) {
      min = std::min(min, ms);
      max = std::max(max, ms);
      sum += ms;
    }
    char avg[32];
    std::snprintf(avg, sizeof avg, "%.1f", static_cast<double>(sum) / static_cast<double>(b.millis_behind_latest.size()));
    r["sources"][0]["metrics"] = {{"minMsBehindLatest", std::to_string(min)}, {"avgMsBehindLatest", avg},
                                  {"maxMsBehindLatest", std::to_string(max)},
                                  {"numTotalShards", std::to_string(b.millis_behind_latest.size())}};
  }
  r["sink"] = {{"description", "DeltaSink[" + stream.table + "]"}, {"numOutputRows", b.output_rows}};
  nlohmann::json behind_by_shard = nlohmann::json::object();
  for (const auto& [shard, ms] : b.millis_behind_latest) behind_by_shard[std::to_string(shard)] = ms;
  r["lakestream"] = {{"table", stream.table},
                     {"quarantined", b.quarantined},
                     {"tombstones", b.tombstones},
                     {"deletes", b.deletes},
                     {"lateDropped", b.late_dropped},
                     {"duplicatesDropped", b.duplicates_dropped},
                     {"replayed", b.replayed},
                     {"alreadyCommitted", b.already_committed},
                     {"watermarkUs", b.watermark_us},
                     {"maxEventTimeUs", b.event_time ? nlohmann::json(b.event_time->max_us) : nlohmann::json()},
                     {"description", b.description}};
  if (!behind_by_shard.empty()) r["lakestream"]["millisBehindLatest"] = behind_by_shard;
  if (b.input_wait_ms) r["lakestream"]["inputWaitMs"] = *b.input_wait_ms;
  return r;
}

nlohmann::json failure_record(const std::string& stream, const std::string& run_id, const std::string& message) {
  return {{"name", stream}, {"runId", run_id}, {"timestamp", iso_timestamp(wall_clock_us())},
          {"failure", {{"message", message}}}};
}

bool is_failure(const nlohmann::json& record) { return record.contains("failure"); }

}  // namespace lakestream
