// The answer of COPY ... RETURN_STATS is one row per file with `count` (BIGINT) and
// `column_statistics`, a MAP(VARCHAR, MAP(VARCHAR, VARCHAR)); the C API hands a MAP over only as
// vectors (a list of key/value structs), so it is read from the result's chunk.
#include "sql/copy_stats.h"

#include <duckdb.h>

#include "util/cpu_profile.h"
#include "util/error.h"

namespace lakestream::sql {
namespace {

std::string text_at(duckdb_vector strings, idx_t row) {
  auto* values = static_cast<duckdb_string_t*>(duckdb_vector_get_data(strings));
  return std::string(duckdb_string_t_data(&values[row]), duckdb_string_t_length(values[row]));
}

bool valid_at(duckdb_vector vector, idx_t row) {
  uint64_t* validity = duckdb_vector_get_validity(vector);
  return validity == nullptr || duckdb_validity_row_is_valid(validity, row);
}

// A MAP vector's entry `row` as (key, value) positions in its key and value child vectors.
struct MapEntries {
  duckdb_vector keys, values;
  idx_t begin = 0, end = 0;
};

MapEntries map_entries(duckdb_vector map, idx_t row) {
  MapEntries entries{};
  duckdb_vector pairs = duckdb_list_vector_get_child(map);
  entries.keys = duckdb_struct_vector_get_child(pairs, 0);
  entries.values = duckdb_struct_vector_get_child(pairs, 1);
  if (!valid_at(map, row)) return entries;
  const auto& list = static_cast<duckdb_list_entry*>(duckdb_vector_get_data(map))[row];
  entries.begin = list.offset;
  entries.end = list.offset + list.length;
  return entries;
}

}  // namespace

CopyStats copy_returning_stats(Connection& con, const std::string& copy_sql) {
  CpuScope cpu_scope("COPY (RETURN_STATS)");
  duckdb_result result = con.result_of(copy_sql);
  CopyStats stats;
  idx_t count_column = static_cast<idx_t>(-1), stats_column = static_cast<idx_t>(-1);
  for (idx_t c = 0; c < duckdb_column_count(&result); c++) {
    std::string name = duckdb_column_name(&result, c);
    if (name == "count") count_column = c;
    if (name == "column_statistics") stats_column = c;
  }
  duckdb_data_chunk chunk = count_column == static_cast<idx_t>(-1) || stats_column == static_cast<idx_t>(-1)
                                ? nullptr
                                : duckdb_fetch_chunk(result);
  if (chunk == nullptr || duckdb_data_chunk_get_size(chunk) != 1) {
    if (chunk) duckdb_destroy_data_chunk(&chunk);
    duckdb_destroy_result(&result);
    throw Error("COPY ... RETURN_STATS did not answer with one file's count and column_statistics");
  }
  duckdb_vector counts = duckdb_data_chunk_get_vector(chunk, count_column);
  stats.rows = valid_at(counts, 0) ? static_cast<int64_t*>(duckdb_vector_get_data(counts))[0] : 0;
  MapEntries columns = map_entries(duckdb_data_chunk_get_vector(chunk, stats_column), 0);
  for (idx_t i = columns.begin; i < columns.end; i++) {
    auto& of_column = stats.columns[text_at(columns.keys, i)];
    MapEntries values = map_entries(columns.values, i);
    for (idx_t j = values.begin; j < values.end; j++)
      if (valid_at(values.values, j)) of_column[text_at(values.keys, j)] = text_at(values.values, j);
  }
  duckdb_destroy_data_chunk(&chunk);
  duckdb_destroy_result(&result);
  return stats;
}

}  // namespace lakestream::sql
