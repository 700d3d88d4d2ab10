// `lakestream status [-p FILE] [--json] [--serve [--port N]]`: where every stream is now, and
// whether it keeps up; or the same as a dashboard page with charts, served until SIGTERM/SIGINT.
#include <iostream>

#include "checkpoint/replays.h"
#include "cli/commands.h"
#include "engine/dashboard.h"
#include "engine/lake_stores.h"
#include "engine/status.h"
#include "streams/batch_report.h"
#include "util/stop.h"

namespace lakestream::cli {

namespace {

struct StatusFlags {
  std::string pipeline_file = "lakestream.toml";
  bool json = false;
  bool serve = false;
  int port = 8642;
  std::string host = "127.0.0.1";
};

void serve_dashboard(const Pipeline& pipeline, const StatusFlags& flags) {
  install_stop_signals();
  HttpServer server(flags.host, flags.port,
                    [&pipeline](const std::string& path) { return dashboard_response(pipeline, path); });
  std::cout << "dashboard at http://" << flags.host << ":" << server.port() << "/ (Ctrl-C to stop)\n" << std::flush;
  while (!sleep_unless_stopped(3600)) {
  }
}

}  // namespace

void add_status_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("status", "Show each stream's last batch, watermark, drops, state, Kafka lag and health");
  auto flags = std::make_shared<StatusFlags>();
  cmd->add_option("-p,--pipeline", flags->pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_flag("--json", flags->json, "print JSON (each stream's lastProgress is Spark's StreamingQueryProgress)");
  cmd->add_flag("--serve", flags->serve, "serve a dashboard page with charts from the progress logs");
  cmd->add_option("--port", flags->port, "with --serve: the port (0: any free port)")->capture_default_str();
  cmd->add_option("--host", flags->host, "with --serve: the address to listen on")->capture_default_str();
  cmd->footer("Health: ok (nothing to read, a batch ran in the last 10 minutes), behind (input not read yet, or "
              "processing below input for 10 minutes), idle (nothing to read, no recent batch), failing (the last run "
              "failed). Exit status 1 when a stream is failing.");
  cmd->callback([flags] {
    Pipeline pipeline = with_replays(load_pipeline_with_stores(flags->pipeline_file));
    refresh_checkpoint_copies(pipeline);
    if (flags->serve) {
      serve_dashboard(pipeline, *flags);
      return;
    }
    int64_t now = wall_clock_us();
    auto statuses = pipeline_status(pipeline, now);
    if (flags->json) std::cout << status_json(statuses).dump(2) << "\n";
    else std::cout << format_status(statuses, now);
    for (const auto& s : statuses)
      if (s.health == "failing") set_exit_status(1);
  });
}

}  // namespace lakestream::cli
