// `lakestream why [-p FILE] [--table T] [-f text|json] RECORD...`: the trail of Kafka records
// through every table (replays included), and why each table holds, dropped or replaced them;
// `lakestream why --window "TABLE START [GROUP...]"`: the records of one window (check/why.h).
#include <iostream>

#include "check/why.h"
#include "checkpoint/replays.h"
#include "cli/commands.h"
#include "engine/lake_stores.h"
#include "util/error.h"

namespace lakestream::cli {

void add_why_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("why", "The trail of a record through every table: where it was counted, dropped or superseded, and why");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto table = std::make_shared<std::string>();
  auto format = std::make_shared<std::string>("text");
  auto record = std::make_shared<std::vector<std::string>>();
  auto limit = std::make_shared<int64_t>(20);
  auto event = std::make_shared<std::string>();
  auto window = std::make_shared<std::string>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("--table", *table, "only the records of this bronze table");
  cmd->add_option("-f,--format", *format, "text, or json (one object per record)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_option("--limit", *limit, "the most records to trace")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--event", *event, "the fields of an event as JSON, e.g. '{\"order_id\": 1006, \"status\": \"placed\"}'");
  cmd->add_option("--window", *window,
                  "the records of one window, as check names it: \"hourly_sales 09:00\", \"2026-10-01 09:00 EU\"");
  cmd->add_option("record", *record,
                  "PARTITION:OFFSET (3:1042), field values (order_id=1006 status=placed), or a key (1006)");
  cmd->callback([pipeline_file, table, format, record, limit, event, window] {
    Pipeline pipeline = with_replays(load_pipeline_with_stores(*pipeline_file));
    refresh_checkpoint_copies(pipeline);
    WhyRequest request = parse_why_request(*record, *table, *event, *window);
    request.limit = *limit;
    WhyAnswer answer = why(pipeline, request);
    std::cout << (*format == "json" ? why_json_lines(answer) : format_why(answer));
    if (answer.trails.empty()) set_exit_status(1);
  });
}

}  // namespace lakestream::cli
