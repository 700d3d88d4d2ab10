// A query's result read as DuckDB's vectors, chunk by chunk: for results too large to render as
// text (sql::Rows), such as a file's keys read into memory.
#pragma once

#include <functional>
#include <string>

#include <duckdb.h>

#include "sql/duckdb.h"

namespace lakestream::sql {

// Runs `sql` and hands each chunk of its result to `each`.
void for_each_chunk(Connection& con, const std::string& sql, const std::function<void(duckdb_data_chunk chunk, idx_t rows)>& each);

// The values of a chunk's column, as the column's C type.
template <typename T>
const T* column_data(duckdb_data_chunk chunk, idx_t column) {
  return static_cast<const T*>(duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, column)));
}

// Whether row `row` of a chunk's column is not NULL.
inline bool valid(duckdb_data_chunk chunk, idx_t column, idx_t row) {
  uint64_t* validity = duckdb_vector_get_validity(duckdb_data_chunk_get_vector(chunk, column));
  return validity == nullptr || duckdb_validity_row_is_valid(validity, row);
}

}  // namespace lakestream::sql
