// `lakestream run [-p FILE] [STREAM...]`: runs the streams once over what is new, then stops.
#include <iostream>

#include "cli/commands.h"
#include "engine/runner.h"

namespace lakestream::cli {

void add_run_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run the pipeline's streams over what is new (ingest first), then stop");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto options = std::make_shared<RunOptions>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("streams", options->streams, "streams to run (default: all, in dependency order)");
  cmd->add_flag("-q,--quiet", options->quiet, "print nothing but errors");
  cmd->callback([pipeline_file, options] {
    Pipeline pipeline = load_pipeline(*pipeline_file);
    run_pipeline(pipeline, *options, std::cout);
  });
}

}  // namespace lakestream::cli
