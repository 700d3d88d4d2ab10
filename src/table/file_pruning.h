// Reading only the files that can matter: a time range on a column keeps the files whose
// partition value (for a partition column) or min/max statistics (for another) can fall in it.
// A file with no statistics for the column is kept: skipping is an optimisation, never a guess.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream::delta {

// [since_us, until_us) in microseconds since the epoch, UTC; the defaults leave a side open.
struct TimeRange {
  int64_t since_us = std::numeric_limits<int64_t>::min();
  int64_t until_us = std::numeric_limits<int64_t>::max();
  bool is_everything() const;
  // A SQL condition that `column_sql` (a timestamp or date) is in the range.
  std::string contains_sql(const std::string& column_sql) const;
};

// The snapshot with only the files that may hold rows whose `column` (a timestamp or date
// column of the table) is in `range`. Throws Error when the table has no such column.
Snapshot prune_files(sql::Connection& con, const Snapshot& snapshot, const std::string& column, const TimeRange& range);

}  // namespace lakestream::delta
