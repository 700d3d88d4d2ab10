// Delta file statistics (numRecords, minValues, maxValues, nullCount): what lets Spark and other
// readers skip files, computed the way Spark computes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sql/copy_stats.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream::delta {

// The stats JSON string for the Parquet file at `parquet_path`, whose columns are `file_columns`.
// Min/max only for orderable primitives (not boolean, binary or nested); strings' minimum cut to
// 32 characters and their maximum left out when longer; timestamps at millisecond precision with
// the maximum rounded up. nullCount for every non-struct column. `written`, what the COPY that
// wrote the file answered with RETURN_STATS, spares reading its footer back.
std::string compute_file_stats(sql::Connection& con, const std::string& parquet_path,
                               const std::vector<Column>& file_columns, const sql::CopyStats* written = nullptr);

// Spark's stats form of an instant: "2026-10-01T09:05:00.123Z", from microseconds since the
// epoch, truncated to the millisecond (rounded up when `round_up`). `utc_suffix` false gives
// the timestamp_ntz form without the "Z".
std::string stats_timestamp(int64_t epoch_micros, bool round_up, bool utc_suffix = true);

}  // namespace lakestream::delta
