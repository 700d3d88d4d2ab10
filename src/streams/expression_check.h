// The SQL a pipeline file holds (derived columns, window filters, aggregate arguments), bound by
// DuckDB against the columns each stream reads, before any stream runs: a mistake is told with
// the file, the line and the key, not found halfway through a run.
#pragma once

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream {

// Parses every expression of the file, then binds each over empty tables shaped like the ones its
// stream reads (in a scratch schema of `con`; nothing is read or written), adding each mistake to
// `reading.mistakes` as "FILE:LINE: streams.NAME.KEY: ...". An expression over a table whose
// columns the file's other mistakes leave unknown is parsed only, so no mistake that follows from
// another is told.
void check_stream_expressions(PipelineReading& reading, sql::Connection& con);

// The same, once per content of a file without mistakes: a hash of the file checked last is kept
// in the checkpoints folder (.expressions-checked), so that a run with nothing new does not start
// DuckDB (about 25 ms) to check again what an earlier run checked.
void check_stream_expressions_once(PipelineReading& reading);

}  // namespace lakestream
