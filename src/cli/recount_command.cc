// `lakestream recount [-p FILE] [STREAM...]`: corrects the written windows from bronze.
#include <iostream>

#include "check/recount.h"
#include "check/lake_views.h"
#include "cli/commands.h"
#include "cli/memory_limit_option.h"
#include "engine/lake_stores.h"

namespace lakestream::cli {

void add_recount_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("recount", "Rewrite the written windows of window tables from a batch recount of their source");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto streams = std::make_shared<std::vector<std::string>>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  auto since = std::make_shared<std::string>();
  auto until = std::make_shared<std::string>();
  cmd->add_option("--since", *since, "only windows from this time on (e.g. 2026-03-02, \"2026-03-02 09:00\"; UTC)");
  cmd->add_option("--until", *until, "only windows before this time");
  cmd->add_option("streams", *streams, "window streams whose tables to recount (default: all)");
  auto memory_limit = add_memory_limit_option(cmd);
  cmd->callback([pipeline_file, streams, since, until, memory_limit] {
    int64_t limit = memory_limit_bytes(*memory_limit);
    Pipeline pipeline = load_pipeline_with_stores(*pipeline_file);
    refresh_checkpoint_copies(pipeline);
    auto changes = recount_pipeline(pipeline, *streams, parse_time_range(*since, *until), limit);
    if (changes.empty()) std::cout << "recount: every written window already equals the recount; nothing changed\n";
    for (const auto& c : changes)
      std::cout << "recount: " << c.table << " " << c.window << ": " << c.before << " -> " << c.after << "\n";
  });
}

}  // namespace lakestream::cli
