// Replays (`lakestream replay STREAM --into TABLE`): a latest or window stream of the pipeline
// run again from the start of its source table into a new table, with its own checkpoint
// (checkpoints/<TABLE>/) and optionally another watermark. The replay is recorded in its
// checkpoint (replay.json), so that check, status and later replay runs see it as a stream of
// the pipeline, named after its table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"

namespace lakestream {

struct ReplaySpec {
  std::string stream;                         // the pipeline's stream it replays
  std::string into;                           // the new table, and the replay stream's name
  std::optional<int64_t> watermark_delay_us;  // window streams: another watermark delay
};

// The replay as a stream: a copy of the original writing `into`. Throws Error when the stream is
// unknown or an ingest stream, or when `into` is a table or stream of the pipeline already.
Stream replay_stream(const Pipeline& pipeline, const ReplaySpec& spec);

// Records the replay in its checkpoint; a replay of the same table with other settings is refused.
void record_replay(const Pipeline& pipeline, const ReplaySpec& spec);

// The pipeline with its recorded replays added as streams (after the streams they copy).
Pipeline with_replays(const Pipeline& pipeline);

}  // namespace lakestream
