// The day of an instant without ICU: DuckDB computes date() of a TIMESTAMPTZ through ICU's
// calendar, about 0.2 µs a row, the largest single cost of writing a bronze table partitioned by
// day. Our sessions run in UTC (sql::Connection sets it), where that day is the epoch value's.
#pragma once

#include <string>
#include <vector>

namespace lakestream::sql {

// `expression` with the day of an instant computed from its epoch value, when the expression is
// exactly `date(c)`, `CAST(c AS DATE)` or `c::DATE` for one of `instant_columns` (TIMESTAMPTZ
// columns, matched as DuckDB matches names: ignoring case); any other expression is returned
// unchanged. The result equals DuckDB's own for every value, NULL and +-infinity included, but
// only in a session whose TimeZone is UTC.
std::string utc_date_without_icu(const std::string& expression, const std::vector<std::string>& instant_columns);

}  // namespace lakestream::sql
