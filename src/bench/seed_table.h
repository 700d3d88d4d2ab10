// A silver table that already holds many orders (1M, 10M keys) before the benchmark's MERGE runs
// into it, as a shop's would after months. Its files are clustered by key (each holds one key
// range), as an upsert that prunes by key statistics keeps them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream::bench {

// Creates the Delta table at `table_path` (which must not exist) with `columns` (bronze's) and
// the orders with keys first_key .. first_key + keys - 1, `keys_per_file` to a Parquet file.
void seed_orders_table(sql::Connection& con, const std::string& table_path, const std::vector<delta::Column>& columns,
                       int64_t first_key, int64_t keys, int64_t keys_per_file);

}  // namespace lakestream::bench
