// Placeholder: replaced by the real command.
#include "cli/commands.h"
#include "util/error.h"

namespace lakestream::cli {
void add_query_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("query", "not built yet");
  cmd->callback([] { throw Error("query: not built yet"); });
}
}  // namespace lakestream::cli
