#include "engine/runner.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "engine/backlog_progress.h"
#include "checkpoint/checkpoint.h"
#include "engine/progress_record.h"
#include "sinks/lake_table.h"
#include "source/group_membership.h"
#include "sql/duckdb.h"
#include "streams/ingest_stream.h"
#include "streams/latest_stream.h"
#include "streams/window_stream.h"
#include "table/iceberg_metadata.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log_time.h"
#include "util/stop.h"

namespace lakestream {

namespace {

StreamReport run_one(StreamContext& ctx) {
  CpuScope cpu_scope("run_one (a cycle)");
  switch (ctx.stream.kind) {
    case StreamKind::Ingest: return run_ingest_stream(ctx);
    case StreamKind::Latest: return run_latest_stream(ctx);
    case StreamKind::Window: return run_window_stream(ctx);
  }
  throw Error("internal: unknown stream kind");
}

// When the stream's previous batch started, for the input rate of the next one: among the newest
// records only (a stream whose last 50 runs failed has no rate to go on).
std::optional<int64_t> previous_batch_start(const ProgressLog& log) {
  auto records = log.read(50);
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    BatchProgress batch = decode_progress(*it);
    if (!batch.failure && batch.started_at_us) return batch.started_at_us;
  }
  return std::nullopt;
}

// A worker says where a single-writer stream runs: a plain run every time it does not run it
// here; a continuous run (a service log) at its first cycle and whenever it moves, and not at
// every cycle in between.
void tell_where_it_runs(const Stream& stream, const std::optional<std::string>& elsewhere, const RunOptions& options,
                        std::ostream& out) {
  if (options.quiet) return;
  if (!options.service_log || !options.kept) {
    if (elsewhere) out << stream.name << ": " << *elsewhere << "\n" << std::flush;
    return;
  }
  std::string where = elsewhere.value_or("");
  auto told = options.kept->told_where.find(stream.name);
  bool first = told == options.kept->told_where.end();
  if ((first && where.empty()) || (!first && told->second == where)) return;
  options.kept->told_where[stream.name] = where;
  out << log_time_now() << " " << stream.name << ": "
      << (where.empty() ? "runs on this worker now, which holds partition 0" : where) << "\n" << std::flush;
}

// A crash after a commit, before its Iceberg metadata, leaves the Iceberg view a version behind:
// the run writes it before the stream's first batch (a failure only warns, as after a commit).
void catch_up_iceberg(const Pipeline& pipeline, const Stream& stream, const RunOptions& options) {
  for (const auto& table : stream.tables_written()) {
    delta::Table lake = lake_table(pipeline, table);
    if (options.kept && !options.kept->iceberg_caught_up.insert(lake.path()).second) continue;
    try {
      delta::catch_up_iceberg_metadata(lake);
    } catch (const Error& e) {
      std::fprintf(stderr, "warning: the Iceberg metadata of table %s was not caught up: %s\n", table.c_str(), e.what());
    }
  }
}

}  // namespace

bool single_writer_is_shared(const Pipeline& pipeline) {
  for (const Stream& stream : pipeline.streams)
    if (!pipeline.worker_group(stream).empty()) return true;
  return false;
}

bool process_runs_stream(const RunOptions& options, const std::string& name) {
  const std::vector<std::string>& process_streams = options.process_streams.value_or(options.streams);
  return process_streams.empty() || std::find(process_streams.begin(), process_streams.end(), name) != process_streams.end();
}

std::optional<std::string> single_writers_run_elsewhere(const Pipeline& pipeline, const RunOptions& options) {
  for (const Stream& stream : pipeline.streams) {
    std::string group = pipeline.worker_group(stream);
    if (group.empty() || !process_runs_stream(options, stream.name)) continue;
    const Source& source = *pipeline.find_source(stream.source);
    if (joined_group(pipeline.kafka, group, source.topic).held().count(0)) return std::nullopt;
    return "runs on the worker that holds partition 0 of " + source.topic + " (consumer group " + group + ")";
  }
  return std::nullopt;  // not a worker: this process runs what it is asked to
}

std::vector<StreamReport> run_pipeline(const Pipeline& pipeline, const RunOptions& options, std::ostream& out) {
  for (const auto& name : options.streams)
    if (!pipeline.find_stream(name)) throw Error(pipeline.no_stream_named(name));
  std::string run_id = options.run_id.empty() ? new_uuid() : options.run_id;
  std::optional<sql::Database> own_db;
  std::optional<sql::Connection> own_con;
  if (!options.kept) own_con.emplace(own_db.emplace());
  sql::Connection& con = options.kept ? options.kept->con : *own_con;
  std::vector<StreamReport> reports;
  for (const Stream* stream : pipeline.in_dependency_order()) {
    if (!options.streams.empty() &&
        std::find(options.streams.begin(), options.streams.end(), stream->name) == options.streams.end())
      continue;
    if (stop_requested()) break;
    if (stream->kind != StreamKind::Ingest && single_writer_is_shared(pipeline)) {
      auto elsewhere = single_writers_run_elsewhere(pipeline, options);
      tell_where_it_runs(*stream, elsewhere, options, out);
      if (elsewhere) continue;
    }
    if (pipeline.iceberg_for(*stream)) catch_up_iceberg(pipeline, *stream, options);
    ProgressLog log(pipeline.checkpoint_path(stream->name), options.progress_log_bytes);
    // Read from the log at the first batch: a run with nothing new does not parse the whole log;
    // a continuous run keeps the last start itself.
    std::optional<std::optional<int64_t>> previous_start;
    if (options.kept && options.kept->last_batch_start_us.count(stream->name))
      previous_start = std::optional<int64_t>(options.kept->last_batch_start_us.at(stream->name));
    BacklogProgress backlog(out, options.progress_bar);
    StreamContext ctx{pipeline, *stream, con};
    ctx.continuous = options.continuous;
    if (options.continuous) ctx.batch_pace = std::chrono::microseconds(pipeline.target_latency_of(*stream) / 2);
    // With ingest workers, a single-writer stream moves between processes with partition 0: it
    // keeps nothing (a window's state stays attached while kept, and the next holder must attach it).
    if (options.kept && (stream->kind == StreamKind::Ingest || !single_writer_is_shared(pipeline)))
      ctx.kept = &options.kept->streams[stream->name];
    if (options.kept && stream->kind == StreamKind::Ingest) ctx.wait_for_records_ms = options.wait_for_records_ms;
    if (options.on_committed) ctx.on_committed = options.on_committed;
    ctx.on_batch = [&](const StreamReport& s, const BatchReport& b) {
      CpuScope cpu_scope("on_batch (progress record, line)");
      if (!previous_start) previous_start = previous_batch_start(log);
      log.append(progress_record(s, b, run_id, *previous_start));
      if (options.on_progress) options.on_progress(batch_progress(s, b, *previous_start));
      previous_start = b.started_at_us;
      if (options.kept && b.started_at_us) options.kept->last_batch_start_us[stream->name] = b.started_at_us;
      if (options.quiet) return;
      backlog.clear_bar();
      if (options.service_log) out << log_time_now() << " ";
      out << format_batch_line(s, b) << "\n";
      backlog.show(s, b);
      out << std::flush;
    };
    try {
      StreamReport report = run_one(ctx);
      backlog.finish();
      compact_due_tables(pipeline, *stream, con, static_cast<int64_t>(report.batches.size()),
                         options.kept ? &options.kept->compaction_clocks : nullptr, options.compaction,
                         options.service_log, options.quiet ? nullptr : &out);
      if (!options.quiet && !options.service_log && report.batches.empty())
        out << stream->name << ": nothing new\n" << std::flush;
      reports.push_back(std::move(report));
    } catch (const Error& e) {
      backlog.finish();
      if (dynamic_cast<const StreamBusy*>(&e) && stream->kind != StreamKind::Ingest && single_writer_is_shared(pipeline)) {
        // A worker that was just given partition 0 while the one that held it finishes a batch.
        if (!options.quiet && !options.service_log) out << stream->name << ": " << e.what() << "; next run\n" << std::flush;
        continue;
      }
      try {
        log.append(failure_record(stream->name, run_id, e.what()));
      } catch (const Error&) {
        // The failure itself is what matters; it is thrown below either way.
      }
      if (options.on_progress) options.on_progress(failure_progress(stream->name, e.what()));
      throw Error("stream " + stream->name + " failed: " + e.what());
    }
  }
  return reports;
}

}  // namespace lakestream
