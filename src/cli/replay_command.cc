// `lakestream replay STREAM --into TABLE [--watermark DELAY]`: re-runs a latest or window stream
// from the start of its source table into a new table with a new checkpoint, e.g. to try a
// longer watermark; check then compares that table with the recount too.
#include <unistd.h>

#include <iostream>

#include "checkpoint/replays.h"
#include "cli/commands.h"
#include "engine/lake_stores.h"
#include "engine/runner.h"
#include "util/error.h"

namespace lakestream::cli {

void add_replay_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("replay", "Re-run a latest or window stream from its source table into a new table");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto spec = std::make_shared<ReplaySpec>();
  auto watermark = std::make_shared<std::string>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("stream", spec->stream, "the stream to replay")->required();
  cmd->add_option("--into", spec->into, "the new table (also the replay's name and checkpoint)")->required();
  cmd->add_option("--watermark", *watermark, "window streams: another watermark delay, e.g. \"2 hours\"");
  cmd->footer("Running the same replay again continues it over what is new in the source table.");
  cmd->callback([pipeline_file, spec, watermark] {
    Pipeline pipeline = load_pipeline_with_stores(*pipeline_file);
    if (!watermark->empty()) {
      spec->watermark_delay_us = parse_duration_us(*watermark);
      if (!spec->watermark_delay_us)
        throw Error("--watermark " + *watermark + " is not a duration; write e.g. 90s, 30 minutes or 2 hours");
    }
    replay_stream(pipeline, *spec);  // refuses a bad replay before anything is written
    record_replay(pipeline, *spec);
    RunOptions options;
    options.streams = {spec->into};
    options.progress_bar = ::isatty(STDOUT_FILENO) == 1;
    run_pipeline(with_replays(pipeline), options, std::cout);
  });
}

}  // namespace lakestream::cli
