// What every stream kind gets to run with: the pipeline, its own definition, the process's
// DuckDB connection (the engine for all SQL of a run) and where to report each batch.
#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "streams/batch_report.h"

namespace lakestream {

class KafkaReader;

// What a stream keeps from one cycle of a continuous run to the next, beside the connection (a
// window stream: its attached state). Dropped with the connection when a cycle fails.
struct KeptStreamState {
  virtual ~KeptStreamState() = default;
};

struct StreamContext {
  const Pipeline& pipeline;
  const Stream& stream;
  sql::Connection& con;
  // A cycle of continuous mode (engine/continuous.h) rather than a run to the end of what is there.
  bool continuous = false;
  // A continuous run: the ingest stream's Kafka reader kept from the cycle before, still assigned
  // where that cycle's last batch ended (null before the first cycle). The stream keeps its reader
  // here, and drops it when the cycle fails, so the next cycle starts from its checkpoint afresh.
  std::shared_ptr<KafkaReader>* kept_reader = nullptr;
  // A continuous run: where the stream keeps what it keeps across cycles (null: a plain run).
  std::unique_ptr<KeptStreamState>* kept_state = nullptr;
  // With the kept reader: how long a cycle that finds nothing new waits in the consumer for the
  // next record before it ends (0: it ends at once).
  int wait_for_records_ms = 0;
  // A continuous run with a target latency: the least time between two batches' reads of their
  // input (half the target), so that a batch takes what arrived meanwhile rather than what one
  // fetch returned (0: read on at once).
  std::chrono::microseconds batch_pace{0};
  // With the pace in a continuous run: when the stream last took its input's end for a batch,
  // kept across cycles so that the pace holds from one cycle to the next (null: a plain run).
  std::chrono::steady_clock::time_point* input_taken_at = nullptr;
  // With the kept reader: when the stream last checked that the records at its positions are the
  // ones it read (a default time point: not yet with this reader).
  std::chrono::steady_clock::time_point* positions_checked_at = nullptr;
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
