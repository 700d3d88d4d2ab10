// The batch recount of a window stream: the same windows computed from the distinct events of
// its source table with ordinary SQL. It shares no code with the streaming path
// (streams/window_*.cc), so that a bug in one is caught by the other.
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "table/delta_table.h"

namespace lakestream {

// Columns a stream adds to an event as it moves through the lake; "the same event" ignores them.
bool is_lineage_column(const std::string& name);

// SQL for the distinct events of `source_view` that pass the stream's filter, each with `ws`
// (its window's start, TIMESTAMPTZ, aligned to the epoch) and `_first_batch` (the source
// _batch_id its first copy arrived in; NULL when the source has no _batch_id).
std::string window_events_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                              const std::string& source_view);

// "count(*) AS "orders", sum(amount) AS "revenue", count(*) AS _events": the stream's
// aggregates as a batch query computes them, plus the number of events.
std::string window_aggregates_sql(const Stream& stream);

// "ws, g1, g2": the window key columns of a recount relation.
std::string window_key_sql(const Stream& stream);

}  // namespace lakestream
