// `lakestream lateness [-p FILE] STREAM`: what each candidate watermark delay would cost on the
// events bronze holds, to choose the watermark from real lateness.
#include <iostream>

#include "check/lateness.h"
#include "cli/commands.h"
#include "engine/lake_stores.h"

namespace lakestream::cli {

void add_lateness_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("lateness", "For candidate watermark delays: events each would drop, how long each holds a window open");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto stream = std::make_shared<std::string>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("stream", *stream, "a window stream")->required();
  cmd->callback([pipeline_file, stream] {
    Pipeline pipeline = load_pipeline_with_stores(*pipeline_file);
    refresh_checkpoint_copies(pipeline);
    std::cout << format_lateness(lateness_profile(pipeline, *stream));
  });
}

}  // namespace lakestream::cli
