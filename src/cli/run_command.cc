// `lakestream run [-p FILE] [STREAM...] [--continuous [--interval 1m]] [--metrics-port N]`: runs
// the streams over what is new, then stops; or keeps running them on an interval.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "engine/continuous.h"
#include "engine/lake_stores.h"
#include "engine/metrics.h"
#include "engine/runner.h"
#include "engine/stop_summary.h"
#include "source/group_membership.h"
#include "storage/request_counts.h"
#include "streams/expression_check.h"
#include "util/error.h"
#include "util/http_server.h"
#include "util/stop.h"

namespace lakestream::cli {

namespace {

struct RunFlags {
  std::string pipeline_file = "lakestream.toml";
  RunOptions options;
  bool continuous = false;
  std::string interval = "1m";
  std::string heartbeat = "10m";
  int metrics_port = -1;
  std::string metrics_host = "127.0.0.1";
};

}  // namespace

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the pipeline's streams over what is new (ingest first), then stop");
  auto flags = std::make_shared<RunFlags>();
  cmd->add_option("-p,--pipeline", flags->pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("streams", flags->options.streams, "streams to run (default: all, in dependency order)");
  cmd->add_flag("-q,--quiet", flags->options.quiet, "print nothing but errors");
  cmd->add_flag("--continuous", flags->continuous,
                "keep running the streams on an interval until SIGTERM/SIGINT (the batch in flight finishes first)");
  cmd->add_option("--interval", flags->interval, "with --continuous: time between runs, e.g. 30s, 1m; 0 starts each run as soon as the last is done")->capture_default_str();
  cmd->add_option("--heartbeat", flags->heartbeat, "with --continuous: how often an idle pipeline says it is alive")
      ->capture_default_str();
  cmd->add_option("--metrics-port", flags->metrics_port, "serve Prometheus metrics on this port (0: any free port)");
  cmd->add_option("--metrics-host", flags->metrics_host, "the address the metrics are served on")->capture_default_str();
  cmd->add_option("--progress-log-bytes", flags->options.progress_log_bytes,
                  "rotate each stream's progress log past this size")->capture_default_str();
  cmd->callback([flags] {
    PipelineReading reading = read_pipeline(flags->pipeline_file);
    // Every SQL expression of the file too, before any stream runs (a mistake then stops nothing
    // midway), and every mistake told at once.
    check_stream_expressions_once(reading);
    reading.mistakes.throw_if_any();
    Pipeline pipeline = std::move(reading.pipeline);
    use_lake_stores(pipeline);
    RunOptions options = flags->options;
    options.progress_bar = ::isatty(STDOUT_FILENO) == 1;
    std::unique_ptr<Metrics> metrics;
    std::unique_ptr<HttpServer> server;
    ContinuousOptions continuous;
    // A bare 0 needs no unit: the help itself offers "0" for "each run as soon as the last is done".
    auto interval = flags->interval == "0" ? std::optional<int64_t>(0) : parse_duration_us(flags->interval);
    if (!interval || *interval < 0)
      throw Error("--interval " + flags->interval + " is not a duration; write e.g. 30s, 1m or 1 hour (0: each run as soon "
                  "as the last is done)");
    continuous.interval_us = *interval;
    std::vector<std::string> served = flags->options.streams;
    if (served.empty())
      for (const Stream* stream : pipeline.in_dependency_order()) served.push_back(stream->name);
    ServiceHealth health(served, expected_run_gap(std::chrono::microseconds(continuous.interval_us)));
    if (flags->metrics_port >= 0) {
      metrics = std::make_unique<Metrics>(pipeline);
      Metrics* m = metrics.get();
      ServiceHealth* h = &health;
      server = std::make_unique<HttpServer>(flags->metrics_host, flags->metrics_port, [m, h](const std::string& path) {
        if (path == "/metrics") return HttpResponse{200, "text/plain; version=0.0.4; charset=utf-8", m->render()};
        // Live: this thread of the process answers.
        if (path == "/healthz") return HttpResponse{200, "text/plain; charset=utf-8", "ok\n"};
        if (path == "/readyz") {
          Readiness r = h->readiness();
          return HttpResponse{r.ready ? 200 : 503, "text/plain; charset=utf-8", r.text};
        }
        return HttpResponse{404, "text/plain; charset=utf-8", "the metrics are at /metrics, the health at /healthz and /readyz\n"};
      });
      options.on_progress = [m](const BatchProgress& batch) { m->observe(batch); };
      std::cout << "metrics at http://" << flags->metrics_host << ":" << server->port() << "/metrics\n" << std::flush;
    }
    struct LeaveGroupsAtEnd {
      ~LeaveGroupsAtEnd() { leave_joined_groups(); }
    } leave_groups_at_end;
    if (!flags->continuous) {
      // Ctrl-C or SIGTERM ends the run at the next batch boundary, as in continuous mode; the
      // exit status is then 130, as for a shell command interrupted.
      install_stop_signals();
      health.run_started(served);
      auto reports = run_pipeline(pipeline, options, std::cout);
      health.run_ended(served, std::nullopt);
      // What the run cost in round trips to the store, where a table or checkpoint is on one.
      storage::RequestCounts requests = storage::request_counts();
      if (!options.quiet && requests.total() > 0) std::cout << storage::describe_requests(requests) << "\n" << std::flush;
      if (stop_requested()) {
        std::cout << stop_summary(pipeline, options, reports) << std::flush;
        set_exit_status(130);
      }
      return;
    }
    continuous.health = &health;
    auto heartbeat = parse_duration_us(flags->heartbeat);
    if (!heartbeat || *heartbeat <= 0)
      throw Error("--heartbeat " + flags->heartbeat + " is not a duration; write e.g. 10m or 1 hour");
    continuous.heartbeat_seconds = *heartbeat / 1e6;
    run_continuously(pipeline, options, continuous, std::cout, std::cerr);
  });
}

}  // namespace lakestream::cli
