// The SQL of a window stream's aggregates in their three forms: partial (over one batch's rows),
// merge (a batch's partials into the state), and final (the gold columns). count/sum/min/max/avg
// are all mergeable, so a window's state is a handful of numbers however many events it has.
// Given the arguments' types, every form is a pure function of the stream's definition
// (tests/streams/window_aggregates_test.cc runs them against a recount that shares no code).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream {

class WindowAggregates {
 public:
  // `source_relation` is SQL for a relation with the source's columns (used to learn the
  // DuckDB types of the aggregate arguments).
  WindowAggregates(sql::Connection& con, const Stream& stream, const std::string& source_relation);
  // With the DuckDB type of each aggregate's argument given ("" for count(*)).
  WindowAggregates(const Stream& stream, std::vector<std::string> argument_types);

  // "<window start> AS ws, <group columns>" over the source's rows.
  std::string window_key_select() const;
  // The epoch-aligned window start, in microseconds, of a source row.
  std::string window_start_us() const;
  // "count(*) AS c0, sum(amount) AS s1, ..." over the source's rows.
  std::string partial_select() const;
  // The aggregate arguments evaluated once per row, "(amount) AS __arg1, ..." ("" when all are
  // count(*)), so that a batch keeps only these columns of its rows, not every source column.
  std::string argument_select() const;
  // A query for the partials per window of `relation` (rows with the event-time and group columns
  // and those of argument_select()), with the state's columns: ws, the group columns, the partials.
  // It groups by the window start in microseconds, a BIGINT, and makes it a timestamp once per
  // window, not once per row.
  std::string partials_by_window(const std::string& relation) const;
  // "c0 = w.c0 + p.c0, ..." for UPDATE <state> w ... FROM <partials> p.
  std::string merge_assignments() const;
  // "w.ws = p.ws AND w.g IS NOT DISTINCT FROM p.g ..." for a window state row w and partial p.
  std::string same_window(const std::string& w, const std::string& p) const;
  // "<ws> AS hour, g, <final> AS orders, ..." over the state's rows.
  std::string final_select() const;
  // The state's partial columns, comma-separated ("c0, s1").
  std::string partial_columns() const;

 private:
  // partial_select() with the argument of aggregate i given by `argument(i)`.
  std::string partial_select_of(const std::function<std::string(size_t)>& argument) const;

  const Stream& stream_;
  std::vector<std::string> argument_types_;  // DuckDB type of each aggregate's argument ("" for *)
};

}  // namespace lakestream
