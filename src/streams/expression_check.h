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

}  // namespace lakestream
