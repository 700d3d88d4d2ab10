#include "sql/result_chunks.h"

namespace lakestream::sql {

void for_each_chunk(Connection& con, const std::string& sql, const std::function<void(duckdb_data_chunk chunk, idx_t rows)>& each) {
  duckdb_result result = con.result_of(sql);
  struct Release {
    duckdb_result* result;
    ~Release() { duckdb_destroy_result(result); }
  } release{&result};
  while (duckdb_data_chunk chunk = duckdb_fetch_chunk(result)) {
    struct ReleaseChunk {
      duckdb_data_chunk* chunk;
      ~ReleaseChunk() { duckdb_destroy_data_chunk(chunk); }
    } release_chunk{&chunk};
    each(chunk, duckdb_data_chunk_get_size(chunk));
  }
}

}  // namespace lakestream::sql
