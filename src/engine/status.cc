#include "engine/status.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "checkpoint/checkpoint.h"
#include "checkpoint/progress_log.h"
#include "checkpoint/window_state_store.h"
#include "engine/progress_record.h"
#include "engine/rate_alert.h"
#include "sinks/lake_table.h"
#include "sinks/partition_commit.h"
#include "source/kafka_reader.h"
#include "source/kinesis_client.h"
#include "table/delta_table.h"
#include "table/iceberg_metadata.h"
#include "table/table_files.h"
#include "util/files.h"
#include "util/error.h"
#include "util/percentile.h"
#include "util/plural.h"

namespace lakestream {

namespace {

constexpr int64_t kIdleAfterUs = 10LL * 60 * 1000000;

const char* kind_name(StreamKind kind) {
  switch (kind) {
    case StreamKind::Ingest: return "ingest";
    case StreamKind::Latest: return "latest";
    case StreamKind::Window: return "window";
  }
  return "?";
}

// Bronze's committed offsets: the end of the newest batch the table holds (by its txn), as the
// checkpoint planned it. Empty when nothing is committed.
std::map<int32_t, int64_t> committed_offsets(const Pipeline& pipeline, const Stream& stream) {
  // Workers keep each partition's position in bronze's per-partition txns.
  if (!pipeline.worker_group(stream).empty())
    return committed_positions(delta::load_snapshot(lake_table(pipeline, stream.table)), stream.name);
  auto id = read_checkpoint_id(pipeline, stream);
  if (!id) return {};
  int64_t committed = delta::txn_version(lake_table(pipeline, stream.table), *id);
  if (committed < 0) return {};
  auto batch = read_planned_batch(pipeline.checkpoint_path(stream.name), committed);
  if (!batch) return {};
  return batch->kafka().end_offsets();
}

void add_kafka_lag(const Pipeline& pipeline, const Stream& stream, StreamStatus& status) {
  const Source* source = pipeline.find_source(stream.source);
  try {
    auto committed = committed_offsets(pipeline, stream);
    KafkaReader reader(pipeline.kafka, source->topic);
    for (const auto& [p, w] : reader.watermarks()) {
      // A partition never read counts from its earliest offset (or its end with startingOffsets latest).
      int64_t done = committed.count(p) ? committed[p] : (source->start_at_latest ? w.high : w.low);
      status.kafka_lag.push_back({p, done, w.high});
    }
  } catch (const Error& e) {
    status.lag_error = e.what();
  }
}

// Where a Kinesis ingest stream stands in each shard, by the plan of the newest batch bronze holds,
// and what Kinesis says is past there: one record read from the position (MillisBehindLatest).
void add_kinesis_lag(const Pipeline& pipeline, const Stream& stream, StreamStatus& status) {
  const Source* source = pipeline.find_source(stream.source);
  try {
    KinesisInput committed;
    if (auto id = read_checkpoint_id(pipeline, stream)) {
      int64_t version = delta::txn_version(lake_table(pipeline, stream.table), *id);
      auto batch = version < 0 ? std::nullopt : read_planned_batch(pipeline.checkpoint_path(stream.name), version);
      if (batch) committed = batch->kinesis();
    }
    KinesisClient client(source->kinesis);
    for (const auto& shard : client.list_shards()) {
      auto read = committed.shards.find(shard.id);
      if (read != committed.shards.end() && read->second.finished) continue;
      std::string iterator;
      if (read != committed.shards.end() && !read->second.position.empty())
        iterator = client.shard_iterator(shard.id, IteratorStart::AfterSequence, read->second.position);
      else if (read != committed.shards.end() && read->second.from_ms)
        iterator = client.shard_iterator(shard.id, IteratorStart::AtTimestamp, "", *read->second.from_ms);
      else if (read == committed.shards.end() && committed.shards.empty() &&
               source->kinesis.start == KinesisSettings::Start::Latest)
        iterator = client.shard_iterator(shard.id, IteratorStart::Latest);
      else
        iterator = client.shard_iterator(shard.id, IteratorStart::TrimHorizon);
      KinesisRecords got = client.get_records(iterator, 1);
      status.kinesis_lag.push_back({shard.id, got.millis_behind_latest, !got.records.empty()});
    }
  } catch (const Error& e) {
    status.lag_error = e.what();
  }
}

// The newest source version of the newest batch the table holds (by its txn), as the checkpoint
// planned it: what the stream has read wherever it ran (the progress log is this machine's).
int64_t committed_source_version(const Pipeline& pipeline, const Stream& stream) {
  auto id = read_checkpoint_id(pipeline, stream);
  if (!id) return -1;
  int64_t committed = delta::txn_version(lake_table(pipeline, stream.table), *id);
  // A batch that only moved the watermark read no version: the one before it says.
  for (int64_t batch = committed; batch >= 0 && batch > committed - 100; batch--) {
    auto planned = read_planned_batch(pipeline.checkpoint_path(stream.name), batch);
    if (!planned) return -1;
    if (!planned->table().no_data && planned->table().to >= 0) return planned->table().to;
  }
  return -1;
}

void add_versions_behind(const Pipeline& pipeline, const Stream& stream, StreamStatus& status) {
  int64_t latest = delta::latest_version(lake_table(pipeline, stream.from));
  int64_t read_to = status.last_batch && status.last_batch->end_version ? *status.last_batch->end_version : -1;
  read_to = std::max(read_to, committed_source_version(pipeline, stream));
  status.versions_behind = std::max<int64_t>(0, latest - read_to);
}

// Bytes as a person reads them: "930 B", "41.2 kB", "3.1 MB" (powers of 1000, as du -h --si).
std::string bytes_text(int64_t bytes) {
  const char* units[] = {"B", "kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1000 && unit < 4) {
    value /= 1000;
    unit++;
  }
  char text[32];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

// The table's live files and log, and the stream's state file. Nothing when the table cannot be
// read (status says why elsewhere, through the stream's own lines).
std::optional<StreamStatus::Footprint> footprint_of(const Pipeline& pipeline, const Stream& stream) {
  try {
    delta::Snapshot snapshot = delta::load_snapshot(lake_table(pipeline, stream.table));
    if (!snapshot.exists()) return std::nullopt;
    StreamStatus::Footprint f;
    for (const auto& file : snapshot.files) {
      f.data_files++;
      f.data_bytes += file.size;
    }
    for (const auto& log : delta::list_table_files(snapshot.table, "_delta_log/")) {
      f.log_files++;
      f.log_bytes += static_cast<int64_t>(log.size);
    }
    f.table_version = snapshot.version;
    if (delta::iceberg_enabled(snapshot.metadata)) f.iceberg_version = delta::iceberg_metadata_version(snapshot.table).value_or(-1);
    if (stream.kind == StreamKind::Window) {
      std::string state = WindowStateStore::path_in(pipeline.checkpoint_path(stream.name));
      if (path_exists(state)) f.state_bytes = file_size_or_zero(state);
    }
    return f;
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::string health_of(const StreamStatus& s, int64_t last_batch_us, int64_t now_us) {
  if (!s.last_error.empty()) return "failing";
  int64_t lag = s.versions_behind;
  for (const auto& p : s.kafka_lag) lag += p.lag();
  for (const auto& shard : s.kinesis_lag) lag += shard.records_waiting ? 1 : 0;
  if (lag > 0 || s.falling_behind) return "behind";
  if (!s.last_batch || now_us - last_batch_us > kIdleAfterUs) return "idle";
  return "ok";
}

std::set<std::string> partition_set(const std::string& partitions) {
  std::set<std::string> set;
  std::stringstream in(partitions);
  for (std::string p; std::getline(in, p, ',');)
    if (!p.empty() && p != "none") set.insert(p);
  return set;
}

// A worker whose partitions another worker held in a later batch is gone from them: it stopped,
// or left the group. Each worker is its newest batch, so "later" compares those.
void mark_stopped_workers(std::vector<StreamStatus::Worker>& workers) {
  for (auto& worker : workers) {
    std::set<std::string> held = partition_set(worker.partitions);
    for (const auto& other : workers) {
      if (&other == &worker || other.at_us.value_or(0) <= worker.at_us.value_or(0)) continue;
      std::set<std::string> now = partition_set(other.partitions);
      if (std::none_of(held.begin(), held.end(), [&](const std::string& p) { return now.count(p); })) continue;
      if (!worker.taken_by.empty() && other.timestamp <= worker.taken_at) continue;  // the newest holder
      worker.taken_by = other.name;
      worker.taken_at = other.timestamp;
    }
  }
}

// Which worker runs the single-writer streams: the one whose newest batch held partition 0 of the
// first worker stream's topic, and has not stopped since.
void name_single_writer_worker(const Pipeline& pipeline, std::vector<StreamStatus>& statuses) {
  const Stream* worker_stream = nullptr;
  for (const Stream& stream : pipeline.streams)
    if (!worker_stream && !pipeline.worker_group(stream).empty()) worker_stream = &stream;
  if (!worker_stream) return;
  auto ingest = std::find_if(statuses.begin(), statuses.end(),
                             [&](const StreamStatus& s) { return s.name == worker_stream->name; });
  if (ingest == statuses.end()) return;
  for (const auto& worker : ingest->workers) {
    if (!worker.taken_by.empty() || !partition_set(worker.partitions).count("0")) continue;
    for (auto& s : statuses) {
      if (s.kind == "ingest") continue;
      s.runs_on = worker.name;
      s.runs_on_because = "it holds partition 0 of " + pipeline.find_source(worker_stream->source)->topic;
    }
  }
}

// "partition 0" or "partitions 0,1" for a worker's list of held partitions.
std::string partition_words(const std::string& partitions) {
  return (partitions.find(',') == std::string::npos ? "partition " : "partitions ") + partitions;
}

// How long the oldest input of each of the newest 100 batches waited for its commit.
std::optional<StreamStatus::InputWait> input_wait_of(const std::vector<BatchProgress>& batches) {
  std::vector<int64_t> waits;
  for (auto it = batches.rbegin(); it != batches.rend() && waits.size() < 100; ++it)
    if (!it->failure && it->input_wait_ms) waits.push_back(*it->input_wait_ms);
  if (waits.empty()) return std::nullopt;
  std::sort(waits.begin(), waits.end());
  return StreamStatus::InputWait{static_cast<int64_t>(waits.size()), at_quantile(waits, 0.5), at_quantile(waits, 0.99),
                                 waits.back()};
}

std::string ago(int64_t then_us, int64_t now_us) {
  int64_t s = (now_us - then_us) / 1000000;
  if (s < 0) s = 0;
  char buf[64];
  if (s < 120) std::snprintf(buf, sizeof buf, "%llds ago", static_cast<long long>(s));
  else if (s < 7200) std::snprintf(buf, sizeof buf, "%lldm ago", static_cast<long long>(s / 60));
  else std::snprintf(buf, sizeof buf, "%lldh ago", static_cast<long long>(s / 3600));
  return buf;
}

}  // namespace

std::vector<StreamStatus> pipeline_status(const Pipeline& pipeline, int64_t now_us) {
  std::vector<StreamStatus> statuses;
  for (const Stream* stream : pipeline.in_dependency_order()) {
    StreamStatus s;
    s.name = stream->name;
    s.kind = kind_name(stream->kind);
    s.table = stream->table;
    auto records = ProgressLog(pipeline.checkpoint_path(stream->name)).read();
    std::vector<BatchProgress> batches;
    for (const auto& record : records) {
      batches.push_back(decode_progress(record));
      const BatchProgress& b = batches.back();
      if (b.failure) continue;
      s.batches_logged++;
      s.rows_in += b.input_rows;
      s.rows_out += b.output_rows;
      s.late_dropped += b.late_dropped;
      s.duplicates_dropped += b.duplicates_dropped;
      s.quarantined += b.quarantined;
      if (b.batch_id >= 0) {  // a worker's batch that another owner had committed wrote no version
        s.last_batch = b;
        s.last_record = record;
      }
      if (!b.worker.empty()) {
        auto seen = std::find_if(s.workers.begin(), s.workers.end(), [&](const auto& w) { return w.name == b.worker; });
        if (seen == s.workers.end()) seen = s.workers.insert(s.workers.end(), StreamStatus::Worker{});
        seen->name = b.worker;
        seen->partitions = b.partitions_held;
        seen->timestamp = b.timestamp;
        seen->at_us = b.started_at_us;
      }
    }
    int64_t last_batch_us = s.last_batch ? s.last_batch->started_at_us.value_or(0) : 0;
    if (!batches.empty() && batches.back().failure) {
      s.last_error = *batches.back().failure;
      s.last_error_at = batches.back().timestamp;
    }
    s.falling_behind = falling_behind(batches);
    s.target_latency_us = pipeline.target_latency_of(*stream);
    s.input_wait = input_wait_of(batches);
    s.reads_kinesis = stream->kind == StreamKind::Ingest && pipeline.find_source(stream->source)->is_kinesis();
    if (s.reads_kinesis)
      add_kinesis_lag(pipeline, *stream, s);
    else if (stream->kind == StreamKind::Ingest)
      add_kafka_lag(pipeline, *stream, s);
    else add_versions_behind(pipeline, *stream, s);
    s.health = health_of(s, last_batch_us, now_us);
    s.footprint = footprint_of(pipeline, *stream);
    mark_stopped_workers(s.workers);
    statuses.push_back(std::move(s));
  }
  name_single_writer_worker(pipeline, statuses);
  return statuses;
}

namespace {

// An ingest stream's lag line: per Kafka partition in offsets, per Kinesis shard in milliseconds
// (Kinesis does not count records).
std::string source_lag_line(const StreamStatus& s) {
  const char* system = s.reads_kinesis ? "Kinesis" : "Kafka";
  if (!s.lag_error.empty()) return std::string("         ") + system + " lag unknown: " + s.lag_error + "\n";
  std::string parts;
  if (s.reads_kinesis) {
    int waiting = 0;
    for (const auto& shard : s.kinesis_lag) {
      waiting += shard.records_waiting;
      parts += (parts.empty() ? "" : ", ") + std::to_string(KinesisClient::shard_number(shard.shard)) + ":" +
               std::to_string(shard.millis_behind);
    }
    return "         Kinesis: " + counted(static_cast<int64_t>(s.kinesis_lag.size()), "shard", "shards") + " to read, " +
           std::to_string(waiting) + " with records waiting (shard:ms behind " + parts + ")\n";
  }
  int64_t total = 0;
  for (const auto& p : s.kafka_lag) {
    total += p.lag();
    parts += (parts.empty() ? "" : ", ") + std::to_string(p.partition) + ":" + std::to_string(p.lag());
  }
  return "         Kafka lag " + std::to_string(total) + " (partition:lag " + parts + ")\n";
}

}  // namespace

std::string format_status(const std::vector<StreamStatus>& statuses, int64_t now_us) {
  std::string text;
  for (const auto& s : statuses) {
    char line[512];
    std::snprintf(line, sizeof line, "%-8s %s (%s -> %s)\n", s.health.c_str(), s.name.c_str(), s.kind.c_str(),
                  s.table.c_str());
    text += line;
    if (s.last_batch) {
      const auto& b = *s.last_batch;
      text += "         last batch " + std::to_string(b.batch_id) + " at " + b.timestamp +
              (b.started_at_us ? " (" + ago(*b.started_at_us, now_us) + ")" : "") + ": " + std::to_string(b.input_rows) +
              " in, " + std::to_string(b.output_rows) + " out\n";
    } else {
      text += "         no batch yet\n";
    }
    for (const auto& w : s.workers) {
      std::string when = w.timestamp + (w.at_us ? " (" + ago(*w.at_us, now_us) + ")" : "");
      if (w.taken_by.empty())
        text += "         worker " + w.name + " held " + partition_words(w.partitions) + " at " + when + "\n";
      else
        text += "         worker " + w.name + " stopped: it held " + partition_words(w.partitions) + " until " + when +
                "; worker " + w.taken_by + " has held " +
                (w.partitions.find(',') == std::string::npos ? "it" : "them") + " since " + w.taken_at + "\n";
    }
    if (!s.runs_on.empty()) text += "         runs on worker " + s.runs_on + " (" + s.runs_on_because + ")\n";
    text += "         logged: " + counted(s.batches_logged, "batch", "batches") + ", " + counted(s.rows_in, "row", "rows") + " in, " +
            std::to_string(s.rows_out) + " out";
    if (s.quarantined) text += ", " + std::to_string(s.quarantined) + " quarantined";
    if (s.kind == "window")
      text += ", " + std::to_string(s.late_dropped) + " late dropped, " +
              counted(s.duplicates_dropped, "duplicate", "duplicates") + " dropped";
    text += "\n";
    if (s.last_batch && s.last_batch->state && s.last_batch->state->operator_name == "keyIndex")
      text += "         key index " + counted(s.last_batch->state->rows_total, "key", "keys") + " in memory (" +
              bytes_text(s.last_batch->state->memory_bytes) + ")\n";
    if (s.last_batch && s.last_batch->state && s.last_batch->state->operator_name == "fileKeySets")
      text += "         key sets of " + counted(s.last_batch->state->rows_total, "file", "files") + " in memory (" +
              bytes_text(s.last_batch->state->memory_bytes) + ")\n";
    if (s.last_batch && s.last_batch->watermark_us) {
      const auto& b = *s.last_batch;
      text += "         watermark " + iso_timestamp(*b.watermark_us);
      if (b.state)
        text += ", state " + counted(b.state->rows_total, "row", "rows") + " (" + std::to_string(b.state->memory_bytes) +
                " bytes)";
      text += "\n";
    }
    if (s.kind == "ingest") {
      text += source_lag_line(s);
    } else {
      text += "         " + counted(s.versions_behind, "source version", "source versions") + " not read yet\n";
    }
    if (s.footprint) {
      const auto& f = *s.footprint;
      text += "         table " + counted(f.data_files, "file", "files") + " (" + bytes_text(f.data_bytes) +
              "), log " + counted(f.log_files, "file", "files") + " (" + bytes_text(f.log_bytes) + ")" +
              (f.state_bytes ? ", state file " + bytes_text(*f.state_bytes) : std::string()) + "\n";
      if (f.iceberg_version) {
        text += "         Iceberg view " + (*f.iceberg_version < 0 ? std::string("not written yet")
                                                                 : "of version " + std::to_string(*f.iceberg_version));
        int64_t behind = f.table_version - *f.iceberg_version;
        if (behind > 0)
          text += ", " + counted(behind, "version", "versions") + " behind the table's (the next commit or run writes it)";
        text += "\n";
      }
    }
    if (s.target_latency_us > 0) {
      text += "         target latency " + std::to_string(s.target_latency_us / 1000) + " ms";
      if (s.input_wait)
        text += "; the oldest input of the last " + counted(s.input_wait->batches, "batch", "batches") + " waited p50 " +
                std::to_string(s.input_wait->p50_ms) + " ms, p99 " + std::to_string(s.input_wait->p99_ms) + " ms, max " +
                std::to_string(s.input_wait->max_ms) + " ms";
      text += "\n";
    }
    if (s.falling_behind) text += "         ALERT processing rate below input rate for 10 minutes\n";
    if (!s.last_error.empty()) text += "         last error at " + s.last_error_at + ": " + s.last_error + "\n";
  }
  return text;
}

nlohmann::json status_json(const std::vector<StreamStatus>& statuses) {
  nlohmann::json streams = nlohmann::json::array();
  for (const auto& s : statuses) {
    nlohmann::json j = {{"name", s.name},
                        {"kind", s.kind},
                        {"table", s.table},
                        {"health", s.health},
                        {"lastProgress", s.last_record ? *s.last_record : nlohmann::json()},
                        {"batchesLogged", s.batches_logged},
                        {"numInputRows", s.rows_in},
                        {"numOutputRows", s.rows_out},
                        {"lateDropped", s.late_dropped},
                        {"duplicatesDropped", s.duplicates_dropped},
                        {"quarantined", s.quarantined},
                        {"fallingBehind", s.falling_behind},
                        {"lastError", s.last_error.empty() ? nlohmann::json() : nlohmann::json(s.last_error)}};
    j["latency"] = {{"targetMs", s.target_latency_us > 0 ? nlohmann::json(s.target_latency_us / 1000) : nlohmann::json()}};
    if (s.input_wait)
      j["latency"]["inputWait"] = {{"batches", s.input_wait->batches}, {"p50Ms", s.input_wait->p50_ms},
                                   {"p99Ms", s.input_wait->p99_ms}, {"maxMs", s.input_wait->max_ms}};
    if (s.footprint) {
      const auto& f = *s.footprint;
      j["footprint"] = {{"dataFiles", f.data_files}, {"dataBytes", f.data_bytes}, {"logFiles", f.log_files},
                        {"logBytes", f.log_bytes}};
      if (f.state_bytes) j["footprint"]["stateBytes"] = *f.state_bytes;
      if (f.iceberg_version) j["footprint"]["icebergVersion"] = *f.iceberg_version;
    }
    if (s.last_batch && s.last_batch->state && s.last_batch->state->operator_name == "keyIndex")
      j["keyIndex"] = {{"keys", s.last_batch->state->rows_total}, {"memoryBytes", s.last_batch->state->memory_bytes}};
    if (s.last_batch && s.last_batch->state && s.last_batch->state->operator_name == "fileKeySets")
      j["fileKeySets"] = {{"files", s.last_batch->state->rows_total}, {"memoryBytes", s.last_batch->state->memory_bytes}};
    if (s.kind == "ingest") {
      nlohmann::json lag = nlohmann::json::array();
      for (const auto& p : s.kafka_lag)
        lag.push_back({{"partition", p.partition}, {"committed", p.committed}, {"latest", p.latest}, {"lag", p.lag()}});
      j["kafkaLag"] = lag;
      if (!s.kinesis_lag.empty()) {
        nlohmann::json shards = nlohmann::json::array();
        for (const auto& shard : s.kinesis_lag)
          shards.push_back({{"shard", shard.shard}, {"millisBehindLatest", shard.millis_behind},
                            {"recordsWaiting", shard.records_waiting}});
        j["kinesisLag"] = shards;
      }
      if (!s.lag_error.empty()) j["kafkaLagError"] = s.lag_error;
      if (!s.workers.empty()) {
        nlohmann::json workers = nlohmann::json::array();
        for (const auto& w : s.workers)
          workers.push_back({{"worker", w.name},
                             {"partitionsHeld", w.partitions},
                             {"timestamp", w.timestamp},
                             {"stopped", !w.taken_by.empty()},
                             {"takenBy", w.taken_by.empty() ? nlohmann::json() : nlohmann::json(w.taken_by)},
                             {"takenAt", w.taken_at.empty() ? nlohmann::json() : nlohmann::json(w.taken_at)}});
        j["workers"] = workers;
      }
    } else {
      j["versionsBehind"] = s.versions_behind;
      if (!s.runs_on.empty()) j["runsOnWorker"] = s.runs_on;
    }
    streams.push_back(j);
  }
  return {{"streams", streams}};
}

}  // namespace lakestream
