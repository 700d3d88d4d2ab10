// The batch recount of a window stream: the same windows computed from the events of its source
// table with ordinary SQL. It shares no code with the streaming path (streams/window_*.cc), so
// that a bug in one is caught by the other.
#pragma once

#include <string>
#include <vector>

#include "pipeline/bronze_layout.h"  // is_lineage_column: "the same event" ignores them
#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream {

// SQL for every copy of an event in `source_view` that passes the stream's filter (evaluated on
// the source's rows, as the stream does) and has an event time: the source's columns plus `ws`
// (its window's start, TIMESTAMPTZ, aligned to the epoch), `_batch` (the source _batch_id it
// arrived in, NULL when the source has none) and `_position` ([partition, offset], NULL when the
// source has none): together, the order in which the stream read the copies.
std::string window_copies_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                              const std::string& source_view);

// SQL for the events among `copies` (a relation with the columns of window_copies_sql, and maybe
// more): the first copy to arrive of each event. With `dedup`, copies with the same dedup keys
// are one event; without, copies equal in every event column (a resend) are.
std::string window_first_copies_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                                    const std::string& copies);

// window_first_copies_sql over window_copies_sql: the events of a source view, each the first
// copy of its event or dedup key (a dedup key remembered forever: the bench's measure of a recount).
std::string window_events_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                              const std::string& source_view);

// The watermarks a window stream's batches met: (source _batch_id, watermark) meaning source
// batches up to that id (and after the previous entry's) were judged against that watermark, in
// order; `next` is the one its next batch meets.
struct MetWatermarks {
  std::vector<std::pair<int64_t, int64_t>> by_source_batch;
  int64_t next = 0;
};

// Creates the temp table `into`: the rows of window_copies_sql, each with `_copy` (a number),
// `_met` (the watermark in microseconds its source batch met, `next` for batches the stream has
// not read) and `_late` (too old for it, by the stream's rule: with dedup its event time, without
// its window's end, at or before `_met`).
void create_window_copies(sql::Connection& con, const Stream& stream, const std::vector<delta::Column>& source_columns,
                          const std::string& source_view, const MetWatermarks& watermarks, const std::string& into);

// Creates the temp table `into`: the copies of `copies` (made by create_window_copies) that pass
// `where` and count, each event once. Without dedup, the first copy of each distinct event. With
// dedup, by the stream's state: a copy counts unless its key's last counted copy is still
// remembered, i.e. that copy's event time plus the watermark delay is after the watermark this
// copy met (Spark's dropDuplicatesWithinWatermark: a key counts again once it is forgotten); a
// late copy within the delay of the counted one, or at its very event time, is the same event.
void create_window_events(sql::Connection& con, const Stream& stream, const std::vector<delta::Column>& source_columns,
                          const std::string& copies, const std::string& where, const std::string& into);

// The DuckDB type of each aggregate's column in the window table (`gold_columns`), in the
// stream's order; "" for a column the table lacks.
std::vector<std::string> aggregate_types(const Stream& stream, const std::vector<delta::Column>& gold_columns);

// "CAST(count(*) AS BIGINT) AS "orders", CAST(sum(amount) AS DECIMAL(28,2)) AS "revenue", count(*) AS _events":
// the stream's aggregates as a batch query computes them, each in its column's type in the
// window table when `types` gives it (a decimal average as Spark computes it: the exact sum over
// the count, rounded half up to the column's scale), plus the number of events; for a sum or
// average of doubles also `_abs<i>`, the sum (or mean) of the absolute values, which bounds the
// rounding of a sum of doubles.
std::string window_aggregates_sql(const Stream& stream, const std::vector<std::string>& types = {});

// A SQL predicate: aggregate i of relation `a` (a written window) and of `b` (a recount made by
// window_aggregates_sql with the same types) are the same value. Integers and decimals compare
// exactly; doubles within a relative tolerance, as a sum of doubles depends on the order of its
// additions: |a - b| <= 1e-9 * max(|a|, |b|, b._abs<i>, 1).
std::string same_aggregate_sql(const Stream& stream, size_t i, const std::string& type, const std::string& a,
                               const std::string& b);

// The relative tolerance of same_aggregate_sql.
constexpr double kDoubleTolerance = 1e-9;

// "ws, g1, g2": the window key columns of a recount relation (with `alias.` before each when given).
std::string window_key_sql(const Stream& stream, const std::string& alias = "");

}  // namespace lakestream
