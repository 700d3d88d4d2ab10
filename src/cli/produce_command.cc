// Placeholder: replaced by the real command.
#include "cli/commands.h"
#include "util/error.h"

namespace lakestream::cli {
void add_produce_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("produce", "not built yet");
  cmd->callback([] { throw Error("produce: not built yet"); });
}
}  // namespace lakestream::cli
