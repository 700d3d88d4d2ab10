// The lake as SQL: every table of a pipeline as a DuckDB view by its name, over the files of its
// current Delta snapshot only (never stray files of unfinished commits). query, check and
// recount all read tables through these views.
#pragma once

#include <map>
#include <string>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "table/file_pruning.h"

namespace lakestream {

// A table seen through a time range: only its rows whose `column` is in `range`, read from only
// the files that can hold them.
struct TableSlice {
  std::string column;
  delta::TimeRange range;
};

// Creates (or replaces) a view per table of the pipeline that exists on disk; returns the
// snapshots they were made from, by table name (for a sliced table, with only the files read).
// A table that cannot be read throws Error; with `unreadable`, it is left out and the reason
// put there by table name instead.
std::map<std::string, delta::Snapshot> create_lake_views(sql::Connection& con, const Pipeline& pipeline,
                                                         const std::map<std::string, TableSlice>& slices = {},
                                                         std::map<std::string, std::string>* unreadable = nullptr);

// "2026-03-02", "2026-03-02 09:00", "2026-03-02T09:00:00Z" (UTC unless an offset is given) as a
// range; an empty text leaves that side open. Throws Error naming the option for any other text.
delta::TimeRange parse_time_range(const std::string& since, const std::string& until);

// The slices a time range makes for the window streams (all when `streams` is empty): each
// one's table by its window column and its source by its event time, the range widened to
// whole windows so that every window in it is complete.
std::map<std::string, TableSlice> window_slices(const Pipeline& pipeline, const delta::TimeRange& range,
                                                const std::vector<std::string>& streams = {});

}  // namespace lakestream
