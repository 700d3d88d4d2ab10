// `lakestream status`: where each stream is now, from its progress log, its checkpoint, its
// tables and (for ingest) the Kafka brokers: the last batch, the watermark, rows, drops, state,
// the lag per partition, and one health word:
//   failing  its last run failed (the error is shown);
//   behind   there is input it has not read yet, or it is falling behind (see rate_alert.h);
//   idle     nothing to read and no batch for 10 minutes (or it never ran);
//   ok       nothing to read, and a batch ran recently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/batch_progress.h"
#include "pipeline/pipeline.h"

namespace lakestream {

struct PartitionLag {
  int32_t partition = 0;
  int64_t committed = 0;  // the next offset bronze has not committed
  int64_t latest = 0;     // the partition's high watermark now
  int64_t lag() const { return latest > committed ? latest - committed : 0; }
};

// A Kinesis source's shard: how far the stream's position is behind the shard's tip.
struct ShardLag {
  std::string shard;
  int64_t millis_behind = 0;     // Kinesis's MillisBehindLatest for a read from the position
  bool records_waiting = false;  // a record is there past the position
};

struct StreamStatus {
  std::string name;
  std::string kind;   // ingest | latest | window
  std::string table;
  std::string health;
  std::optional<BatchProgress> last_batch;    // the newest batch
  std::optional<nlohmann::json> last_record;  // its progress record as logged (Spark's StreamingQueryProgress)
  std::string last_error;                     // of the newest run when it failed
  std::string last_error_at;
  int64_t batches_logged = 0;
  int64_t rows_in = 0, rows_out = 0, late_dropped = 0, duplicates_dropped = 0, quarantined = 0;  // over the log
  std::vector<PartitionLag> kafka_lag;        // ingest of a Kafka topic
  bool reads_kinesis = false;                 // ingest of a Kinesis stream, not a Kafka topic
  std::vector<ShardLag> kinesis_lag;          // its shards not read to their end
  std::string lag_error;                      // when the brokers could not be asked
  int64_t versions_behind = 0;                // latest and window: source versions not read yet
  bool falling_behind = false;                // processing below input for 10 minutes
  // Ingest workers ([kafka] group): each worker's newest batch in the log, the partitions it held.
  struct Worker {
    std::string name;        // "host:pid"
    std::string partitions;  // "0,2" or "none"
    std::string timestamp;
    std::optional<int64_t> at_us;
    // A worker whose partitions a later batch of another worker held: it stopped (or left the
    // group). The worker that holds them now, and since when.
    std::string taken_by;
    std::string taken_at;
  };
  std::vector<Worker> workers;
  // What the stream keeps, for a service that runs for weeks: its table's live data files and
  // bytes, its Delta log's files and bytes, and (a window stream) its state file's bytes.
  struct Footprint {
    int64_t data_files = 0, data_bytes = 0;
    int64_t log_files = 0, log_bytes = 0;
    std::optional<int64_t> state_bytes;
    // A table with an Iceberg view (iceberg = true): its version, and the one the view describes
    // (-1: none yet); behind after a run stopped between a commit and its view.
    int64_t table_version = -1;
    std::optional<int64_t> iceberg_version;
  };
  std::optional<Footprint> footprint;  // none when the table is not there yet or cannot be read
  // The stream's target latency ([service] or its own target_latency; 0: none) and what it
  // achieved: how long the oldest input of each of the newest 100 batches waited for its commit.
  int64_t target_latency_us = 0;
  struct InputWait {
    int64_t batches = 0;
    int64_t p50_ms = 0, p99_ms = 0, max_ms = 0;
  };
  std::optional<InputWait> input_wait;  // none when no logged batch tells it
  // Latest and window streams of a pipeline with ingest workers: the worker that runs them (the
  // one holding partition 0), as the workers' newest batches tell; empty when none tells.
  std::string runs_on;
  std::string runs_on_because;  // "it holds partition 0 of orders"
};

// Every stream's status at `now_us` (wall clock, microseconds).
std::vector<StreamStatus> pipeline_status(const Pipeline& pipeline, int64_t now_us);

// The status as text for the terminal, one block per stream.
std::string format_status(const std::vector<StreamStatus>& statuses, int64_t now_us);

// The status as JSON: {"streams": [{...}, ...]}.
nlohmann::json status_json(const std::vector<StreamStatus>& statuses);

}  // namespace lakestream
