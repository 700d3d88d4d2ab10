// `lakestream bench`: one run that measures every stage of a pipeline, for each workload (the
// shop's order events, a clickstream in the shape Python producers send, an analytics tracker's
// wide events with nested objects, a database table's Debezium change events), against the limits
// of the parts it is built from, measured in the same run on the same machine: a plain Kafka
// consumer (the Kafka limit) and one DuckDB query over bronze (the batch limit); and the
// clickstream against the hand-written aggregator users write instead (bench/peers/).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lakestream::bench {

struct BenchOptions {
  std::vector<std::string> workloads = {"shop", "clickstream", "wide", "cdc", "upserts", "freshness"};
  std::vector<int64_t> freshness_rates = {10'000, 50'000};  // events/s produced while a continuous run reads
  double freshness_seconds = 60;
  // The service workload: the shop pipeline in `run --continuous --interval 0s` at each rate for
  // service_seconds, with `[service] target_latency`.
  std::vector<int64_t> service_rates = {1'000, 10'000, 50'000};
  double service_seconds = 60;
  std::string service_target_latency = "400ms";             // bronze's: its p99 target is 300 ms
  std::string service_downstream_target_latency = "600ms";  // silver's and gold's: 1 s less bronze's 300 and a margin
  // How the service's silver replaces rows: "copy-on-write" (the shop's) or "merge-on-read"
  // (deletion_vectors = true), for a feed whose changes fall on old keys spread over every file.
  std::string service_silver = "copy-on-write";
  // The upserts workload: silver at a steady upsert_rate of updates a second with random keys
  // into a seeded table of upsert_keys keys, a batch a second, with and without deletion vectors,
  // and with vectors and the change data feed.
  int64_t upsert_keys = 10'000'000;
  int64_t upsert_rate = 10'000;
  int upsert_batches = 10;
  int64_t events = 2'000'000;
  int partitions = 16;                     // spreads the feed; the broker keeps 256 MiB a partition by default
  int64_t max_offsets_per_trigger = 250'000;
  std::vector<int64_t> silver_keys = {1'000'000, 10'000'000};
  int64_t keys_per_file = 1'000'000;       // of the seeded silver tables
  int backlog_factor = 10;                 // the RSS check ingests events/factor too, with the same cap
  int idle_runs = 5;                       // `run` with nothing new: the median of these
  std::string dir = "lakestream-bench";    // wiped first (only if an earlier bench made it)
  // The `store` workload's object store (s3://, az://, abfss://), its credentials in the usual
  // variables; the workload writes under a fresh prefix there and removes it at the end.
  std::string store_url;
  // The `kinesis` workload's Kinesis endpoint (an emulator's, or AWS's with credentials in the
  // usual variables); the workload creates a stream of kinesis_shards shards there and reads
  // kinesis_events order events from it.
  std::string kinesis_endpoint;
  int kinesis_shards = 4;
  int64_t kinesis_events = 100'000;
  // The `checkpoints` workload: a table holding this many tombstones (a week of a service at 1,000
  // events/s leaves about a million), checkpointed the classic way and with v2 sidecars.
  int64_t checkpoint_tombstones = 200'000;
};

// One measured step: a child process doing `what` over `events` events.
struct Measurement {
  std::string workload;  // "shop", "clickstream", "wide", "cdc", "upserts", "freshness", "service", "checkpoints"
  std::string name;    // "kafka_limit", "ingest", ...
  std::string what;    // for the table
  int64_t events = 0;
  double seconds = 0;      // wall time
  double cpu_seconds = 0;  // user + system time of the process
  double peak_rss_mib = 0;
  // Freshness steps: from an event's Kafka timestamp to its table's commit (-1: not a freshness step).
  double p50_ms = -1, p99_ms = -1, max_ms = -1;
  // Steps on an object store: the requests the run sent, and its batches (-1: not such a step).
  int64_t store_requests = -1, batches = -1;
  double store_mb_sent = 0, store_mb_received = 0;
  int64_t latency_samples = 0;  // the events, or the gold rows, the latencies are of
  // Service steps: the live data files of the step's tables at its end (-1: not such a step).
  int64_t bronze_files = -1, silver_files = -1, gold_files = -1;
  // Upsert steps (with `batches`): the data, vector and change data bytes the batches wrote to the
  // table, and the bytes of the batches' own rows (their bronze files) (-1: not such a step).
  int64_t bytes_written = -1, vector_bytes = -1, change_bytes = -1, batch_bytes = -1;
  // Upsert steps: the first batch's time and the median of the others' (their progress records'
  // triggerExecution), ms: the first builds merge-on-read's key index, the others use it.
  double first_batch_ms = -1, later_batch_ms = -1;
  double per_second() const { return seconds > 0 ? static_cast<double>(events) / seconds : 0; }
};

// A target of the performance issue, as measured.
struct Target {
  std::string workload;
  std::string name;
  std::string goal;    // "ingest >= 50% of the Kafka limit"
  double value = 0;    // in the goal's unit
  bool met = false;
};

struct BenchResult {
  BenchOptions options;
  int64_t feed_bytes = 0;  // JSON bytes produced to the big topic
  std::vector<Measurement> measurements;
  std::vector<Target> targets;
  const Measurement& get(const std::string& workload, const std::string& name) const;
  bool all_targets_met() const;
};

// Runs the whole benchmark, printing progress lines to `progress`. Error when a step fails or a
// step's outcome is wrong (the consumer or bronze does not hold every event, or check finds a
// PROBLEM in a workload's tables).
BenchResult run_bench(const BenchOptions& options, std::ostream& progress);

}  // namespace lakestream::bench
