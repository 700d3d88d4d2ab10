// `lakestream recount [-p FILE] [STREAM...]`: corrects the written windows from bronze.
#include <iostream>

#include "check/recount.h"
#include "cli/commands.h"

namespace lakestream::cli {

void add_recount_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("recount", "Rewrite the written windows of window tables from a batch recount of their source");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto streams = std::make_shared<std::vector<std::string>>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("streams", *streams, "window streams whose tables to recount (default: all)");
  cmd->callback([pipeline_file, streams] {
    auto changes = recount_pipeline(load_pipeline(*pipeline_file), *streams);
    if (changes.empty()) std::cout << "recount: every written window already equals the recount; nothing changed\n";
    for (const auto& c : changes)
      std::cout << "recount: " << c.table << " " << c.window << ": " << c.before << " -> " << c.after << "\n";
  });
}

}  // namespace lakestream::cli
