// Placeholder: replaced by the real command.
#include "cli/commands.h"
#include "util/error.h"

namespace lakestream::cli {
void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "not built yet");
  cmd->callback([] { throw Error("run: not built yet"); });
}
}  // namespace lakestream::cli
