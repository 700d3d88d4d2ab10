// What a stream did in one run, batch by batch: printed by `lakestream run`, recorded in the
// stream's progress log (Spark's StreamingQueryProgress) and kept for status.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lakestream {

// The event times a batch saw (window streams: over the rows that pass the filter).
struct EventTimeStats {
  int64_t min_us = 0;
  int64_t max_us = 0;
  double avg_us = 0;
};

// A stateful stream's state after a batch (Spark's stateOperators entry): a window stream's
// (its state database), or a merge-on-read latest stream's key index (in memory).
struct StateReport {
  int64_t rows_total = 0;       // open windows plus remembered dedup keys; the files whose key sets are held
  int64_t rows_updated = 0;     // state rows a batch inserted or changed
  int64_t rows_removed = 0;     // windows closed and dedup keys expired
  int64_t memory_bytes = 0;     // the state database's size on disk; the key index's (or key sets') memory
  std::string operator_name = "windowAggregate";  // or "keyIndex", "fileKeySets"
};

struct BatchReport {
  int64_t batch_id = -1;
  bool replayed = false;        // the batch was planned by a run that died, and run again now
  bool already_committed = false;  // its output was already in the table (a replay after the commit)
  int64_t input_rows = 0;
  int64_t output_rows = 0;      // rows written (or windows emitted, or keys merged)
  int64_t quarantined = 0;      // ingest: records sent to quarantine
  int64_t tombstones = 0;       // ingest of change events: Kafka tombstones skipped (no event)
  int64_t deletes = 0;          // latest with deletes: rows the batch's delete events removed
  int64_t late_dropped = 0;     // window: rows older than the watermark
  int64_t duplicates_dropped = 0;  // window: copies dropped within the watermark
  int64_t watermark_us = 0;     // window: the watermark after this batch
  double seconds = 0;
  std::string description;      // e.g. "offsets 0:0-3 1:0-5" or "versions 3-4"
  std::string warning;          // something the operator should know that did not fail the batch

  // How long the batch's oldest input had waited when its commit was done (ms): from the record's
  // Kafka timestamp for ingest, from the source commit for the others. Unknown for a batch with
  // no input, or one whose records carry no timestamp.
  std::optional<int64_t> input_wait_ms;
  int64_t started_at_us = 0;    // wall clock when the batch started
  // Milliseconds per phase, Spark's names where they fit: walCommit (planning the input),
  // getBatch (reading it), addBatch (processing and committing), triggerExecution (all); and of
  // addBatch, addBatchCpu (the CPU its thread used) and addBatchStoreWait (its thread's wait for
  // store requests): the rest of addBatch is a wait for a core or a lock.
  std::map<std::string, int64_t> durations_ms;
  std::optional<EventTimeStats> event_time;
  std::optional<StateReport> state;
  // Where the source stood: Kafka offsets per partition ({"0": 12, ...}) for ingest, table
  // versions for the others. `latest_offset` is the newest available when the batch was planned.
  nlohmann::json start_offset;
  nlohmann::json end_offset;
  nlohmann::json latest_offset;
  // A Kinesis batch: per shard number, how far behind the shard's tip its last read was
  // (MillisBehindLatest; Kinesis has no offsets to count a backlog in).
  std::map<int32_t, int64_t> millis_behind_latest;
};

struct StreamReport {
  std::string stream;
  std::string stream_id;        // the checkpoint's id (Spark's query id)
  std::string source;           // "KafkaV2[Subscribe[orders]]" or "DeltaSource[bronze_orders]"
  std::string table;
  std::vector<BatchReport> batches;
  double seconds = 0;
  bool stopped = false;         // a stop request (SIGINT/SIGTERM) ended it with input left to read
  // An ingest worker (consumer group mode): the partitions it holds, "0,2,5" or "none"; empty
  // for a stream that reads every partition.
  std::string partitions_held = {};
  std::string worker = {};      // the worker, "host:pid", when partitions_held is set
};

// One line for a batch, for the terminal: "read_orders: batch 3: 1000 in, 998 out to bronze_orders, 2 quarantined (12 ms)".
std::string format_batch_line(const StreamReport& stream, const BatchReport& batch);

// Wall clock now, in microseconds since the epoch.
int64_t wall_clock_us();

// Milliseconds since `start` (a steady clock time point), for phase durations.
int64_t ms_since(std::chrono::steady_clock::time_point start);

// Where a phase began, on the thread that runs it: the clock, the thread's CPU and its wait for
// store requests so far.
struct PhaseStart {
  std::chrono::steady_clock::time_point at;
  int64_t cpu_ns = 0;
  int64_t store_wait_us = 0;
  static PhaseStart now();
};

// A batch's closing figures, once its commit is done, on the thread that did it: how long its
// oldest input waited for it (`oldest_input_ms`, wall-clock ms: a record's Kafka timestamp, a
// shard's arrival, a source table's commit), addBatch (processing and committing, since
// `processing`) with its CPU and store wait, and triggerExecution (the whole batch, since `started`).
void finish_timings(BatchReport& batch, std::optional<int64_t> oldest_input_ms, const PhaseStart& processing,
                    std::chrono::steady_clock::time_point started);

}  // namespace lakestream
