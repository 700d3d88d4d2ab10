// `lakestream help [COMMAND | pipeline-file]`: a command's help, or the pipeline-file reference.
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/reference.h"
#include "util/error.h"

namespace lakestream::cli {

void add_help_command(CLI::App& app) {
  auto topic = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("help", "Show a command's help, or the pipeline file's reference (help pipeline-file)");
  cmd->add_option("topic", *topic, "a command, or pipeline-file");
  cmd->callback([&app, topic] {
    if (topic->empty()) {
      // app.help() would show the help of the command given, this one; --help shows the commands.
      std::cout << app.get_formatter()->make_help(&app, app.get_name(), CLI::AppFormatMode::Normal);
      return;
    }
    if (*topic == "pipeline-file") {
      std::cout << kPipelineFileReference;
      return;
    }
    std::string topics;
    for (const CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == "help" || sub->get_group().empty()) continue;  // itself, and hidden ones
      if (sub->get_name() == *topic) {
        std::cout << sub->help("lakestream");
        return;
      }
      topics += (topics.empty() ? "" : ", ") + sub->get_name();
    }
    throw Error("no help on '" + *topic + "': ask about a command (" + topics + ") or pipeline-file");
  });
}

}  // namespace lakestream::cli
