// What DuckDB knows of a Parquet file as it writes it: `COPY ... (FORMAT parquet, RETURN_STATS)`
// answers with the file's rows and, per column, the statistics its footer holds (min, max,
// null_count, has_nan, as text). A written file's stats then need no second read of its footer.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "sql/duckdb.h"

namespace lakestream::sql {

struct CopyStats {
  int64_t rows = 0;
  // By column as DuckDB names it: the quoted name ("a", "we""ird"), nested leaves dotted
  // ("s"."f"); per column its statistics by name ("min", "max", "null_count", "has_nan").
  std::map<std::string, std::map<std::string, std::string>> columns;
};

// Runs `copy_sql`, a COPY to one Parquet file with RETURN_STATS among its options, and returns
// what it answered. Throws Error as Connection::exec does when the COPY fails.
CopyStats copy_returning_stats(Connection& con, const std::string& copy_sql);

}  // namespace lakestream::sql
