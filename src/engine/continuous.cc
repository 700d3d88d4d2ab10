#include "engine/continuous.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <streambuf>
#include <thread>
#include <vector>

#include "engine/background_compaction.h"
#include "engine/background_log_cleanup.h"
#include "engine/committed_versions.h"
#include "engine/downstream_pace.h"
#include "sql/freed_memory.h"
#include "table/background_checkpoints.h"
#include "table/delta_table.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log_time.h"
#include "util/plural.h"
#include "util/stop.h"

namespace lakestream {

namespace {

// Passes whole lines to a stream shared with another thread, so that the two stages' lines never
// interleave within a line.
class LineSink : public std::streambuf {
 public:
  LineSink(std::ostream& to, std::mutex& mu) : to_(to), mu_(mu) {}
  ~LineSink() override { sync(); }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return 0;
    line_ += static_cast<char>(c);
    if (c == '\n') sync();
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; i++) overflow(static_cast<unsigned char>(s[i]));
    return n;
  }
  int sync() override {
    if (line_.empty()) return 0;
    std::lock_guard<std::mutex> lock(mu_);
    to_ << line_ << std::flush;
    line_.clear();
    return 0;
  }

 private:
  std::ostream& to_;
  std::mutex& mu_;
  std::string line_;
};

// How a stage with interval 0 waits after a run that found nothing new.
enum class IdleWait {
  Backoff,         // sleeps, doubling from first_idle_seconds up to max_idle_seconds
  InTheConsumer,   // the run itself waited in its Kafka consumer for the next record
  ForNewVersions,  // until the ingest stage commits a version (or max_idle_seconds pass)
};

// Whether this process's ingest stage writes `stream`'s source and so tells the stage of each of
// its commits (CommittedVersions): not when the source is written by another process, nor by a
// worker group, whose other workers commit unseen here.
bool source_commits_told_here(const Pipeline& pipeline, const Stream& stream, const RunOptions& options) {
  for (const auto& source : pipeline.streams) {
    if (source.kind != StreamKind::Ingest || source.table != stream.from) continue;
    return process_runs_stream(options, source.name) && pipeline.worker_group(source).empty();
  }
  return false;
}

// One stage: runs its streams again and again until a stop is requested, a line per batch, a
// heartbeat while idle. Returns the number of failed runs in a row when it stopped.
int run_stage(const Pipeline& pipeline, RunOptions options, const ContinuousOptions& continuous,
              const std::string& stage, IdleWait idle, CommittedVersions& versions, std::ostream& out,
              std::ostream& err) {
  auto kept = std::make_unique<KeptAcrossRuns>();
  int failures_in_a_row = 0;
  double idle_wait = 0;
  int64_t batches_since_heartbeat = 0, runs_since_heartbeat = 0;
  auto last_heartbeat = std::chrono::steady_clock::now();
  std::vector<std::string> streams = options.streams;
  if (streams.empty())
    for (const Stream* stream : pipeline.in_dependency_order()) streams.push_back(stream->name);
  // With a target latency (the least of the stage's streams'), a cycle that found work is
  // followed by the next only half of it later, so that a batch takes what arrived meanwhile.
  double pace_seconds = 0;
  for (const auto& name : streams)
    if (const Stream* stream = pipeline.find_stream(name); stream && pipeline.target_latency_of(*stream) > 0) {
      double half = static_cast<double>(pipeline.target_latency_of(*stream)) / 2e6;
      pace_seconds = pace_seconds == 0 ? half : std::min(pace_seconds, half);
    }
  // A downstream stage with a target (and interval 0) starts each batch by its oldest unread
  // bronze version instead (engine/downstream_pace.h), when it is told of each: a source written
  // elsewhere keeps the half-target pace, which bounds its wait without knowing its commits.
  std::optional<DownstreamPace> downstream_pace;
  if (idle == IdleWait::ForNewVersions && continuous.interval_us == 0 && streams.size() == 1)
    if (const Stream* stream = pipeline.find_stream(streams.front());
        stream && pipeline.target_latency_of(*stream) > 0 && source_commits_told_here(pipeline, *stream, options))
      downstream_pace.emplace(std::chrono::microseconds(pipeline.target_latency_of(*stream)));
  while (!stop_requested()) {
    auto started = std::chrono::steady_clock::now();
    double wait = 0;
    int64_t versions_seen = versions.count();
    bool wait_for_versions = false;
    if (continuous.health) continuous.health->run_started(streams, started);
    try {
      options.kept = kept.get();
      std::vector<StreamReport> reports = run_pipeline(pipeline, options, out);
      if (continuous.health) continuous.health->run_ended(streams, std::nullopt);
      runs_since_heartbeat++;
      for (const auto& report : reports) batches_since_heartbeat += static_cast<int64_t>(report.batches.size());
      if (started - last_heartbeat >= std::chrono::duration<double>(continuous.heartbeat_seconds)) {
        out << log_time_now() << " alive" << stage << ": " << counted(batches_since_heartbeat, "batch", "batches")
            << " in " << counted(runs_since_heartbeat, "run", "runs") << " in the last " << continuous.heartbeat_seconds
            << " s\n" << std::flush;
        batches_since_heartbeat = runs_since_heartbeat = 0;
        last_heartbeat = started;
      }
      failures_in_a_row = 0;
      double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      wait = std::max(0.0, continuous.interval_us / 1e6 - elapsed);
      if (continuous.interval_us == 0) {
        bool found_work = std::any_of(reports.begin(), reports.end(), [](const StreamReport& r) {
          return std::any_of(r.batches.begin(), r.batches.end(), [](const BatchReport& b) { return b.input_rows > 0; });
        });
        idle_wait = found_work ? 0 : std::min(continuous.max_idle_seconds,
                                              idle_wait == 0 ? continuous.first_idle_seconds : idle_wait * 2);
        // A run that waited in its consumer and still found nothing is let to return at once only
        // after a real wait: one that returned at once (an event that was not a record) backs off.
        bool waited = elapsed >= continuous.first_idle_seconds;
        wait = idle == IdleWait::Backoff || (idle == IdleWait::InTheConsumer && !waited) ? idle_wait : 0;
        if (found_work) wait = std::max(0.0, pace_seconds - elapsed);
        wait_for_versions = !found_work && idle == IdleWait::ForNewVersions;
        if (downstream_pace) {
          // A run reads every version there is when it starts, so the next has work once a
          // version comes after those counted before it.
          if (found_work) downstream_pace->ran(std::chrono::steady_clock::now() - started);
          wait = 0;
          wait_for_versions = true;
        }
      }
    } catch (const Error& e) {
      if (continuous.health) continuous.health->run_ended(streams, std::string(e.what()));
      kept = std::make_unique<KeptAcrossRuns>();  // the next cycle starts from the checkpoints afresh
      failures_in_a_row++;
      wait = std::min(continuous.max_retry_seconds,
                      continuous.first_retry_seconds * std::pow(2.0, failures_in_a_row - 1));
      char retry[96];
      std::snprintf(retry, sizeof retry, "; retrying in %.0f s (failure %d in a row)", wait, failures_in_a_row);
      err << log_time_now() << " lakestream: " << e.what() << retry << "\n" << std::flush;
    }
    if (wait_for_versions ? versions.wait_past(versions_seen, continuous.max_idle_seconds) : sleep_unless_stopped(wait))
      break;
    if (downstream_pace && wait_for_versions && versions.count() != versions_seen) {
      auto start = downstream_pace->start_at(versions.added_at(versions_seen + 1));
      if (sleep_unless_stopped(std::chrono::duration<double>(start - std::chrono::steady_clock::now()).count())) break;
    }
  }
  return failures_in_a_row;
}

}  // namespace

int run_continuously(const Pipeline& pipeline, RunOptions options, const ContinuousOptions& continuous,
                     std::ostream& out, std::ostream& err) {
  install_stop_signals();
  if (options.run_id.empty()) options.run_id = new_uuid();  // one run id for the life of the process
  options.service_log = true;
  options.continuous = true;
  options.progress_bar = false;  // a log, and stages cannot share one redrawn line
  delta::remember_checkpoints(true);  // a snapshot per batch then costs the newest commits, not a Parquet read
  sql::keep_freed_memory_for(std::chrono::seconds(10));  // each batch reuses the last ones' pages (sql/freed_memory.h)
  out << log_time_now() << " running " << pipeline.path << " every " << continuous.interval_us / 1000000.0
      << " s until SIGTERM or Ctrl-C\n" << std::flush;
  // Stages, each on its own thread: the ingest streams, and each stream downstream of them. Ingest
  // reads on while silver and gold run, so that bronze is as fresh as Kafka whatever the streams
  // downstream cost, and silver does not wait for gold's batches, nor gold for silver's. Each stream
  // still has one runner (its checkpoint's lock), and downstream streams read only committed versions.
  struct Stage {
    RunOptions options;
    std::string name;
    IdleWait idle;
    std::string thread_name;  // at most 15 characters
    int failures = 0;
  };
  std::vector<Stage> stages;
  // Room for every stage first: `ingest` refers into the vector while stages are added after it
  // (an ingest stream can come after a downstream one in dependency order: two sources).
  stages.reserve(pipeline.streams.size() + 1);
  stages.push_back({options, " (ingest streams)", IdleWait::Backoff, "ls:ingest"});
  RunOptions& ingest = stages.front().options;
  ingest.streams.clear();
  for (const Stream* stream : pipeline.in_dependency_order()) {
    if (!options.streams.empty() &&
        std::find(options.streams.begin(), options.streams.end(), stream->name) == options.streams.end())
      continue;
    if (stream->kind == StreamKind::Ingest) {
      ingest.streams.push_back(stream->name);
    } else {
      RunOptions one = options;
      one.streams = {stream->name};
      one.process_streams = options.streams;  // a worker's single writers run where partition 0 is
      // With interval 0, it waits for the ingest stage's next bronze version (a stream whose
      // source is written by another process sees it within max_idle_seconds).
      stages.push_back({one, " (stream " + stream->name + ")", IdleWait::ForNewVersions, ("ls:" + stream->name).substr(0, 15)});
    }
  }
  // With interval 0, a lone ingest stream waits for its next record in its Kafka consumer; a
  // worker, whose partitions move with the group, or several ingest streams back off.
  CommittedVersions versions;
  if (continuous.interval_us == 0 && ingest.streams.size() == 1 &&
      pipeline.worker_group(*pipeline.find_stream(ingest.streams.front())).empty()) {
    stages.front().idle = IdleWait::InTheConsumer;
    ingest.wait_for_records_ms = static_cast<int>(continuous.max_idle_seconds * 1000);
  }
  ingest.on_committed = [&versions] { versions.add(); };
  if (ingest.streams.empty()) stages.erase(stages.begin());
  if (stages.empty()) stages.push_back({options, "", IdleWait::Backoff, "ls:streams"});  // run_pipeline says what is wrong
  // Whole lines to the shared output, so that the stages' lines (and the compaction's) never mix
  // within a line.
  std::mutex out_mu, err_mu;
  LineSink compaction_buf(out, out_mu);
  std::ostream compaction_out(&compaction_buf);
  // Checkpoints off the batches' path (table/background_checkpoints.h); declared before the
  // compaction so that the checkpoints its last commits ask for are still written.
  delta::BackgroundCheckpoints checkpoints;
  // The Delta logs of every table the streams write, cleaned by their retention at start and then
  // hourly, off the batches' path (engine/background_log_cleanup.h): a plain run leaves it to vacuum.
  std::vector<std::string> tables;
  for (const Stage& stage : stages)
    for (const auto& name : stage.options.streams)
      if (const Stream* stream = pipeline.find_stream(name))
        for (const auto& table : stream->tables_written())
          if (std::find(tables.begin(), tables.end(), table) == tables.end()) tables.push_back(table);
  LineSink cleanup_out_buf(out, out_mu), cleanup_err_buf(err, err_mu);
  std::ostream cleanup_out(&cleanup_out_buf), cleanup_err(&cleanup_err_buf);
  std::optional<BackgroundLogCleanup> log_cleanup;
  log_cleanup.emplace(pipeline, tables, continuous.log_cleanup_every, cleanup_out, cleanup_err);
  std::optional<BackgroundCompaction> compaction;
  if (pipeline.compact) {
    compaction.emplace(pipeline, options.quiet ? nullptr : &compaction_out);
    for (Stage& stage : stages) stage.options.compaction = &*compaction;
  }
  int failures = 0;
  if (stages.size() == 1) {
    LineSink out_buf(out, out_mu);
    std::ostream stage_out(&out_buf);
    failures = run_stage(pipeline, stages.front().options, continuous, "", stages.front().idle, versions, stage_out, err);
  } else {
    std::vector<std::thread> threads;
    for (Stage& stage : stages) {
      threads.emplace_back([&] {
        // Bronze first: on a busy machine a downstream batch (silver's copy-on-write rewrite
        // above all) would otherwise take the CPU the ingest stage's next batch waits for. The
        // threads DuckDB starts for the stage inherit this.
        if (stage.idle == IdleWait::ForNewVersions) setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
        // Named for top -H and perf: the threads DuckDB and the ingest writer start inherit it, so
        // a stage's CPU can be told from the others' (librdkafka names its own, rdk:*).
        pthread_setname_np(pthread_self(), stage.thread_name.c_str());
        LineSink out_buf(out, out_mu), err_buf(err, err_mu);
        std::ostream stage_out(&out_buf), stage_err(&err_buf);
        stage.failures = run_stage(pipeline, stage.options, continuous, stage.name, stage.idle, versions, stage_out,
                                   stage_err);
      });
    }
    for (auto& thread : threads) thread.join();
    for (const Stage& stage : stages) failures = std::max(failures, stage.failures);
  }
  compaction.reset();  // lets a merge in hand finish before the last line
  log_cleanup.reset();  // and a cleanup in hand
  out << log_time_now() << " stopped on request; every batch that started was finished and committed\n" << std::flush;
  return failures;
}

}  // namespace lakestream
