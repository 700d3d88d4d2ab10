// What a run stopped by SIGINT/SIGTERM tells its user: what was committed, and what was not run
// (the next run starts there).
#pragma once

#include <string>
#include <vector>

#include "engine/runner.h"

namespace lakestream {

// The summary of a stopped run of `pipeline`'s chosen streams (`options.streams`), given the
// reports of the streams that ran, in order.
std::string stop_summary(const Pipeline& pipeline, const RunOptions& options, const std::vector<StreamReport>& reports);

}  // namespace lakestream
