#include "engine/metrics.h"

#include <cstdio>

#include "checkpoint/progress_log.h"
#include "engine/rate_alert.h"

namespace lakestream {

namespace {

constexpr size_t kRecentRecords = 2000;  // enough batches to span the alert's 10 minutes

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Label values escape backslash, quote and newline.
std::string label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') { out += "\\n"; continue; }
    out += c;
  }
  return out;
}

}  // namespace

const std::vector<double>& Metrics::duration_buckets() {
  static const std::vector<double> buckets = {0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
  return buckets;
}

Metrics::Metrics(const Pipeline& pipeline) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& stream : pipeline.streams) {
    streams_[stream.name].bucket_counts.assign(duration_buckets().size() + 1, 0);
    streams_[stream.name].target_latency_seconds = static_cast<double>(pipeline.target_latency_of(stream)) / 1e6;
    for (const auto& record : ProgressLog(pipeline.checkpoint_path(stream.name)).read(kRecentRecords))
      observe_locked(decode_progress(record));
  }
}

void Metrics::observe(const BatchProgress& batch) {
  std::lock_guard<std::mutex> lock(mu_);
  observe_locked(batch);
}

void Metrics::observe_locked(const BatchProgress& b) {
  StreamMetrics& m = streams_[b.stream];
  if (m.bucket_counts.empty()) m.bucket_counts.assign(duration_buckets().size() + 1, 0);
  m.recent.push_back(b);
  if (m.recent.size() > kRecentRecords) m.recent.pop_front();
  if (b.failure) {
    m.failures++;
    return;
  }
  m.batches++;
  m.input_rows += b.input_rows;
  m.output_rows += b.output_rows;
  m.input_rate = b.input_rows_per_second;
  m.processed_rate = b.processed_rows_per_second;
  m.late_dropped += b.late_dropped;
  m.duplicates_dropped += b.duplicates_dropped;
  m.quarantined += b.quarantined;
  if (b.watermark_us) {
    m.has_event_time = true;
    m.watermark_us = *b.watermark_us;
    if (b.max_event_time_us) m.max_event_time_us = std::max(m.max_event_time_us, *b.max_event_time_us);
  }
  if (b.state) {
    m.state_rows = b.state->rows_total;
    m.state_bytes = b.state->memory_bytes;
  }
  m.lag = b.lag;
  m.millis_behind = b.millis_behind;
  if (b.input_wait_ms) m.input_wait_seconds = static_cast<double>(*b.input_wait_ms) / 1000.0;
  double seconds = b.duration_ms / 1000.0;
  m.duration_sum += seconds;
  size_t bucket = 0;
  while (bucket < duration_buckets().size() && seconds > duration_buckets()[bucket]) bucket++;
  m.bucket_counts[bucket]++;
}

std::string Metrics::render() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::string out;
  auto family = [&](const std::string& name, const std::string& type, const std::string& help,
                    const std::function<void(const std::string&, const StreamMetrics&)>& each) {
    out += "# HELP " + name + " " + help + "\n# TYPE " + name + " " + type + "\n";
    for (const auto& [stream, m] : streams_) each("stream=\"" + label(stream) + "\"", m);
  };
  auto simple = [&](const std::string& name, const std::string& type, const std::string& help,
                    const std::function<double(const StreamMetrics&)>& value) {
    family(name, type, help, [&](const std::string& l, const StreamMetrics& m) {
      out += name + "{" + l + "} " + number(value(m)) + "\n";
    });
  };
  simple("lakestream_batches_total", "counter", "Micro-batches run.", [](auto& m) { return m.batches; });
  simple("lakestream_failures_total", "counter", "Runs of the stream that failed.", [](auto& m) { return m.failures; });
  simple("lakestream_input_rows_total", "counter", "Rows read.", [](auto& m) { return m.input_rows; });
  simple("lakestream_output_rows_total", "counter", "Rows written to the table.", [](auto& m) { return m.output_rows; });
  simple("lakestream_input_rows_per_second", "gauge", "Input rate of the last batch (rows over the time since the batch before).",
         [](auto& m) { return m.input_rate; });
  simple("lakestream_processed_rows_per_second", "gauge", "Processing rate of the last batch (rows over its duration).",
         [](auto& m) { return m.processed_rate; });
  simple("lakestream_late_rows_dropped_total", "counter", "Rows dropped as later than the watermark.",
         [](auto& m) { return m.late_dropped; });
  simple("lakestream_duplicate_rows_dropped_total", "counter", "Copies dropped by dedup within the watermark.",
         [](auto& m) { return m.duplicates_dropped; });
  simple("lakestream_quarantined_records_total", "counter", "Records sent to quarantine.", [](auto& m) { return m.quarantined; });
  simple("lakestream_state_rows", "gauge", "Rows in the stream's state (open windows, remembered keys; a key index's rows).",
         [](auto& m) { return m.state_rows; });
  simple("lakestream_state_bytes", "gauge", "Size of the stream's state: a window stream's database, a merge-on-read latest stream's key index in memory.", [](auto& m) { return m.state_bytes; });
  family("lakestream_watermark_seconds", "gauge", "The event-time watermark, seconds since the epoch.",
         [&](const std::string& l, const StreamMetrics& m) {
           if (m.has_event_time) out += "lakestream_watermark_seconds{" + l + "} " + number(m.watermark_us / 1e6) + "\n";
         });
  family("lakestream_max_event_time_seconds", "gauge", "The newest event time seen, seconds since the epoch.",
         [&](const std::string& l, const StreamMetrics& m) {
           if (m.has_event_time) out += "lakestream_max_event_time_seconds{" + l + "} " + number(m.max_event_time_us / 1e6) + "\n";
         });
  family("lakestream_lag", "gauge", "Offsets (Kafka, per partition) or versions (tables) behind the latest when the last batch was planned.",
         [&](const std::string& l, const StreamMetrics& m) {
           for (const auto& [p, lag] : m.lag)
             out += "lakestream_lag{" + l + ",partition=\"" + label(p) + "\"} " + std::to_string(lag) + "\n";
         });
  family("lakestream_millis_behind_latest", "gauge",
         "Kinesis sources: how far the last read of each shard was behind its tip (MillisBehindLatest), in milliseconds.",
         [&](const std::string& l, const StreamMetrics& m) {
           for (const auto& [shard, ms] : m.millis_behind)
             out += "lakestream_millis_behind_latest{" + l + ",shard=\"" + label(shard) + "\"} " + std::to_string(ms) + "\n";
         });
  family("lakestream_processing_below_input", "gauge", "1 when the processing rate has been below the input rate for 10 minutes.",
         [&](const std::string& l, const StreamMetrics& m) {
           std::vector<BatchProgress> recent(m.recent.begin(), m.recent.end());
           out += "lakestream_processing_below_input{" + l + "} " + (falling_behind(recent) ? "1" : "0") + "\n";
         });
  family("lakestream_target_latency_seconds", "gauge", "The stream's target latency ([service] or its own target_latency), when it has one.",
         [&](const std::string& l, const StreamMetrics& m) {
           if (m.target_latency_seconds > 0) out += "lakestream_target_latency_seconds{" + l + "} " + number(m.target_latency_seconds) + "\n";
         });
  family("lakestream_input_wait_seconds", "gauge", "How long the last batch's oldest input waited for its commit (Kafka timestamp or source commit to commit).",
         [&](const std::string& l, const StreamMetrics& m) {
           if (m.input_wait_seconds) out += "lakestream_input_wait_seconds{" + l + "} " + number(*m.input_wait_seconds) + "\n";
         });
  family("lakestream_batch_duration_seconds", "histogram", "Duration of micro-batches.",
         [&](const std::string& l, const StreamMetrics& m) {
           int64_t cumulative = 0;
           for (size_t i = 0; i < duration_buckets().size(); i++) {
             cumulative += m.bucket_counts[i];
             out += "lakestream_batch_duration_seconds_bucket{" + l + ",le=\"" + number(duration_buckets()[i]) + "\"} " +
                    std::to_string(cumulative) + "\n";
           }
           cumulative += m.bucket_counts.back();
           out += "lakestream_batch_duration_seconds_bucket{" + l + ",le=\"+Inf\"} " + std::to_string(cumulative) + "\n";
           out += "lakestream_batch_duration_seconds_sum{" + l + "} " + number(m.duration_sum) + "\n";
           out += "lakestream_batch_duration_seconds_count{" + l + "} " + std::to_string(cumulative) + "\n";
         });
  return out;
}

}  // namespace lakestream
