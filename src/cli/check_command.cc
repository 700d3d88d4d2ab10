// `lakestream check [-p FILE]`: recounts every streamed table from bronze and says what it finds.
#include <iostream>

#include "check/check.h"
#include "check/lake_views.h"
#include "checkpoint/replays.h"
#include "cli/commands.h"
#include "engine/lake_stores.h"
#include "cli/memory_limit_option.h"
#include "engine/progress_record.h"

namespace lakestream::cli {

void add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Recompute every streamed table from bronze and compare: ok / late / PROBLEM / waiting");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  auto since = std::make_shared<std::string>();
  auto until = std::make_shared<std::string>();
  cmd->add_option("--since", *since, "only windows from this time on (e.g. 2026-03-02, \"2026-03-02 09:00\"; UTC)");
  cmd->add_option("--until", *until, "only windows before this time");
  auto memory_limit = add_memory_limit_option(cmd);
  auto examples = std::make_shared<bool>(false);
  cmd->add_flag("--examples", *examples,
                "under each late or PROBLEM window, name up to 3 of its records and the lakestream why command that lists them");
  cmd->footer("Exit status: 0 when nothing is wrong (late events dropped by the watermark are by design), 1 on any PROBLEM or broken LIMIT (docs/pipeline-file.md, Limits), 2 when check could not check a table (an error line says which and why).");
  cmd->callback([pipeline_file, since, until, memory_limit, examples] {
    int64_t limit = memory_limit_bytes(*memory_limit);
    Pipeline pipeline = with_replays(load_pipeline_with_stores(*pipeline_file));
    refresh_checkpoint_copies(pipeline);
    CheckResult result = check_pipeline(pipeline, parse_time_range(*since, *until), limit);
    std::cout << format_check(result, *examples);
    save_check_result(pipeline, result, iso_timestamp(wall_clock_us()));
    set_exit_status(result.exit_code());
  });
}

}  // namespace lakestream::cli
