// What every stream kind gets to run with: the pipeline, its own definition, the process's
// DuckDB connection (the engine for all SQL of a run) and where to report each batch.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "streams/batch_report.h"
#include "table/parquet_file.h"  // LastPartition

namespace lakestream {

class KafkaReader;

// What a stream kind keeps from one cycle of a continuous run to the next, beside the connection
// (a window stream: its attached state; silver: its key index).
struct KeptStreamState {
  virtual ~KeptStreamState() = default;
};

// What one stream keeps from one cycle of a continuous run (engine/continuous.h) to the next, so
// that a cycle does not pay again for starting them. None of it is a source of truth: each cycle
// plans its input from the checkpoint and the tables, and a cycle that fails drops it all.
struct KeptStream {
  // An ingest stream's Kafka reader, still assigned where the last cycle's last batch ended
  // (null before the first cycle).
  std::shared_ptr<KafkaReader> reader;
  // With the reader: when it last checked that the records at its positions are the ones it read
  // (a default time point: not yet with this reader).
  std::chrono::steady_clock::time_point positions_checked_at;
  // With a target latency: when the stream last took its input's end for a batch, so that the
  // pace holds from one cycle to the next.
  std::chrono::steady_clock::time_point input_taken_at;
  // An ingest stream's: the partition of bronze its last batch fell in, where the next is written
  // first (delta::write_partitioned_files).
  delta::LastPartition bronze_partition;
  // What the kind keeps (declared last: it may use the connection, and goes first).
  std::unique_ptr<KeptStreamState> state;
};

struct StreamContext {
  const Pipeline& pipeline;
  const Stream& stream;
  sql::Connection& con;
  // A cycle of continuous mode (engine/continuous.h) rather than a run to the end of what is there.
  bool continuous = false;
  // A continuous run: what the stream keeps across cycles (null: a plain run, or a single-writer
  // stream that moves between ingest workers and so keeps nothing).
  KeptStream* kept = nullptr;
  // With a kept reader: how long a cycle that finds nothing new waits in the consumer for the
  // next record before it ends (0: it ends at once).
  int wait_for_records_ms = 0;
  // A continuous run with a target latency: the least time between two batches' reads of their
  // input (half the target), so that a batch takes what arrived meanwhile rather than what one
  // fetch returned (0: read on at once).
  std::chrono::microseconds batch_pace{0};
  // Called as soon as an ingest batch's version is in its table, on the thread that committed it:
  // a downstream stream may read it from then on (an ingest stream tells on_batch of a batch only
  // once the next is read, up to a pace later).
  std::function<void()> on_committed = [] {};
  // Called after each batch (for the terminal line and progress records).
  std::function<void(const StreamReport&, const BatchReport&)> on_batch = [](const StreamReport&, const BatchReport&) {};

  // Times a finished batch, adds it to the stream's report and tells on_batch.
  void finish_batch(StreamReport& report, BatchReport& batch, std::chrono::steady_clock::time_point started) {
    batch.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    report.batches.push_back(batch);
    on_batch(report, batch);
  }
};

}  // namespace lakestream
