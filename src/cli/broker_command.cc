// Placeholder: replaced by the real command.
#include "cli/commands.h"
#include "util/error.h"

namespace lakestream::cli {
void add_broker_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("broker", "not built yet");
  cmd->callback([] { throw Error("broker: not built yet"); });
}
}  // namespace lakestream::cli
