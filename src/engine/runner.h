// Runs a pipeline's streams: each in dependency order (ingest first), each to completion of
// what is there now (Spark's Trigger.AvailableNow), as a scheduled job would. Every batch, and
// every failure, is recorded in the stream's progress log (see engine/progress_record.h).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <ostream>
#include <string>
#include <vector>

#include "checkpoint/progress_log.h"
#include "engine/auto_compaction.h"
#include "engine/batch_progress.h"
#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "streams/batch_report.h"
#include "streams/stream_context.h"

namespace lakestream {

class BackgroundCompaction;
class KafkaReader;

// What the cycles of a continuous run (engine/continuous.h) keep from one to the next, so that a
// cycle does not pay again for starting them: the DuckDB database and connection (started on first
// use), and what each stream keeps (an ingest stream's Kafka reader, a window's state). None of it is
// a source of truth: each cycle plans its input from the checkpoints and the tables, and a failed
// cycle throws it all away.
struct KeptAcrossRuns {
  sql::Database db;
  sql::Connection con{db};
  // What each stream keeps (streams/stream_context.h), by name; declared after `con`, which a
  // kind's kept state uses, so that it goes first.
  std::map<std::string, KeptStream> streams;
  // When each stream's last batch started (for the input rate), so that a run does not read the
  // whole progress log again to find it.
  std::map<std::string, int64_t> last_batch_start_us;
  // The tables whose Iceberg metadata this process has caught up with their logs (once is enough:
  // after that every commit writes its own).
  std::set<std::string> iceberg_caught_up;
  // Where each single-writer stream of a worker ran at the last cycle, as last told in the log
  // ("" when here): told again only when it changes.
  std::map<std::string, std::string> told_where;
  // Per table: batches and time since compaction last looked at it (engine/auto_compaction.h).
  std::map<std::string, CompactionClock> compaction_clocks;
};

struct RunOptions {
  std::vector<std::string> streams;  // empty: every stream of the pipeline
  // The streams the whole process runs, when a continuous run splits them into stages (`streams`
  // is then one stage's): whether the process is an ingest worker depends on all of them.
  std::optional<std::vector<std::string>> process_streams;
  bool quiet = false;                // no line per batch
  std::string run_id;                // Spark's runId: the same for every run of one process; new when empty
  int64_t progress_log_bytes = ProgressLog::kDefaultMaxBytes;  // rotate the progress logs past this size
  // Called as soon as an ingest batch's version is in its table, on the thread that committed it
  // (continuous mode wakes the downstream streams with it).
  std::function<void()> on_committed;
  // Called with each batch and failure after it is logged (metrics listen here).
  std::function<void(const BatchProgress&)> on_progress;
  // True to draw backlog progress as a bar on a terminal rather than as plain lines.
  bool progress_bar = false;
  // A service log (continuous mode): each line starts with the time in UTC, and a stream with
  // nothing new prints nothing.
  bool service_log = false;
  // Continuous mode: each run is one cycle (an ingest worker reads only its own share; a plain run
  // waits until the group has read the whole topic).
  bool continuous = false;
  // Continuous mode: what is kept from cycle to cycle (null: a plain run starts everything anew).
  KeptAcrossRuns* kept = nullptr;
  // Continuous mode: the compaction thread, which merges the ingest streams' tables and the large
  // groups of the latest streams' (null: all merged on the stream's thread; engine/runner.cc).
  BackgroundCompaction* compaction = nullptr;
  // Continuous mode with interval 0: how long an ingest stream with nothing new waits in its
  // consumer for the next record before the run ends (0: it ends at once).
  int wait_for_records_ms = 0;
};

// With ingest workers (a consumer group: [kafka] group), the latest and window streams, which
// have one writer, run on one worker only: the one the group gives partition 0 of the first
// worker stream's topic. When that worker dies, the group gives the partition, and with it
// those streams, to another. Returns why this process does not run them now (it is a worker
// without partition 0), or nullopt when it does.
std::optional<std::string> single_writers_run_elsewhere(const Pipeline& pipeline, const RunOptions& options);
// Whether this process runs stream `name`: it is among options.process_streams (or, unset, among
// options.streams), or those are empty (every stream).
bool process_runs_stream(const RunOptions& options, const std::string& name);
// True when the pipeline has ingest workers, so its single-writer streams move between them.
bool single_writer_is_shared(const Pipeline& pipeline);

// Runs the chosen streams in dependency order, printing a line per batch and per stream to
// `out`. Throws Error naming the stream on the first failure (the streams before it stay done;
// the failure is in that stream's progress log). A stop request (util/stop.h) ends the run
// after the batch in flight.
std::vector<StreamReport> run_pipeline(const Pipeline& pipeline, const RunOptions& options, std::ostream& out);

}  // namespace lakestream
