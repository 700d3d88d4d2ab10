// Runs a pipeline's streams: each in dependency order (ingest first), each to completion of
// what is there now (Spark's Trigger.AvailableNow), as a scheduled job would.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "streams/batch_report.h"

namespace lakestream {

struct RunOptions {
  std::vector<std::string> streams;  // empty: every stream of the pipeline
  bool quiet = false;                // no line per batch
};

// Runs the chosen streams in dependency order, printing a line per batch and per stream to
// `out`. Throws Error naming the stream on the first failure (the streams before it stay done).
std::vector<StreamReport> run_pipeline(const Pipeline& pipeline, const RunOptions& options, std::ostream& out);

}  // namespace lakestream
