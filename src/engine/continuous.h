// Continuous mode (`lakestream run --continuous`): the pipeline's streams run again and again on
// an interval until SIGTERM or SIGINT, in stages on threads of their own: the ingest streams, and
// each stream downstream of them (latest, window), so that bronze stays fresh while silver and
// gold are computed, and silver does not wait for gold. A signal lets the batch in flight finish
// and commit, then the process stops cleanly. A failed run is retried with exponential backoff
// (1 s, 2 s, 4 s, ... up to 5 minutes); each failure is in the stream's progress log, so status
// shows it. An interval of 0 starts the next run as soon as the last one is done (Spark's default
// trigger). A run that found nothing new then waits without spinning a core, but not past the next
// event: a lone ingest stream waits in its Kafka consumer for the next record, a downstream stream
// until the ingest stage commits a bronze version (up to max_idle_seconds each, then the run looks
// again); several ingest streams, or workers, wait a little, doubling up to max_idle_seconds.
// While records keep coming, an ingest run reads on (up to max_idle_seconds) rather than ending.
// Each stage keeps its DuckDB instance (and its settings) and each ingest stream its Kafka consumer
// (assigned where its last batch ended) from one run to the next, a window stream its attached
// state (not with ingest workers), and the tables' newest checkpoints and replayed logs are kept in
// memory, a snapshot then reading only the commits after the last one it saw; every run still
// plans its input from the checkpoints and tables, and a failed run drops them all.
// It prints as a service log: every line timestamped (UTC), a line per batch, nothing for an idle
// stream but a periodic heartbeat per stage, which says how many batches and runs it made.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>

#include "engine/runner.h"
#include "engine/service_health.h"

namespace lakestream {

struct ContinuousOptions {
  int64_t interval_us = 60LL * 1000000;   // between the start of one run and the next; 0: at once
  double first_idle_seconds = 0.01;        // with interval 0: the wait after a run that found nothing
  double max_idle_seconds = 1;             // and the longest wait in a consumer or for a bronze version
  double first_retry_seconds = 1;
  double max_retry_seconds = 300;
  // With nothing new, one "alive" line this often (a service log stays quiet while idle, not mute).
  double heartbeat_seconds = 600;
  // How often the service deletes the log files its tables' retention lets go (also at start, on
  // a thread of its own: engine/background_log_cleanup.h).
  std::chrono::seconds log_cleanup_every{3600};
  // Told when each stream's run starts and ends (for /readyz); none: not told.
  ServiceHealth* health = nullptr;
};

// Runs until a stop is requested (installs the signal handlers itself). Returns the number of
// failed runs in a row when it stopped (0 when the last run succeeded).
int run_continuously(const Pipeline& pipeline, RunOptions options, const ContinuousOptions& continuous,
                     std::ostream& out, std::ostream& err);

}  // namespace lakestream
