// The SQL a pipeline file holds (derived columns, window filters, aggregate arguments), bound by
// DuckDB against the columns each stream reads, before any stream runs: a mistake is told with
// the file, the line and the key, not found halfway through a run.
#pragma once

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream {

// Binds every expression of `pipeline` over empty tables shaped like the ones its streams read
// (in a scratch schema of `con`; nothing is read or written). Throws one Error listing every
// expression that does not bind, each as "FILE:LINE: streams.NAME.KEY: ...".
void check_stream_expressions(const Pipeline& pipeline, sql::Connection& con);

// The same, once per content of the pipeline file: a hash of the file checked last is kept in
// the checkpoints folder (.expressions-checked), so that a run with nothing new does not start
// DuckDB (about 25 ms) to check again what an earlier run checked.
void check_stream_expressions_once(const Pipeline& pipeline);

}  // namespace lakestream
