// What a latest or window stream reads of its source table, for the commands that recompute its
// table (check, recount, why): the source table itself when the stream reads its appends; else a
// view of every row the stream has read or will read (source/table_source.h): the appends of the
// versions that change no row (skip_changes), or the change data feed with its change columns
// (changes), preimages left out for a latest stream (a row's state before an update: never a
// key's newest).
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "table/file_pruning.h"

namespace lakestream {

struct StreamInput {
  std::string relation;                // a quoted table or view name to select from
  std::vector<delta::Column> columns;  // its columns
};

// The input of `stream`, whose source table is `source`; a view `__read_by_<stream>` when the
// stream does not read appends, limited to event times in `range` when given (a window stream).
// Throws Error when vacuum deleted a file the stream read.
StreamInput stream_input(sql::Connection& con, const Stream& stream, const delta::Snapshot& source,
                         const delta::TimeRange* range = nullptr);

}  // namespace lakestream
