// What every stream kind gets to run with: the pipeline, its own definition, the process's
// DuckDB connection (the engine for all SQL of a run) and where to report each batch.
#pragma once

#include <functional>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "streams/batch_report.h"

namespace lakestream {

struct StreamContext {
  const Pipeline& pipeline;
  const Stream& stream;
  sql::Connection& con;
  // Called after each batch (for the terminal line and progress records).
  std::function<void(const StreamReport&, const BatchReport&)> on_batch = [](const StreamReport&, const BatchReport&) {};
};

}  // namespace lakestream
