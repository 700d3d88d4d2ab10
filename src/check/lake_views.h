// The lake as SQL: every table of a pipeline as a DuckDB view by its name, over the files of its
// current Delta snapshot only (never stray files of unfinished commits). query, check and
// recount all read tables through these views.
#pragma once

#include <map>
#include <string>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream {

// Creates (or replaces) a view per table of the pipeline that exists on disk; returns the
// snapshots they were made from, by table name.
std::map<std::string, delta::Snapshot> create_lake_views(sql::Connection& con, const Pipeline& pipeline);

}  // namespace lakestream
