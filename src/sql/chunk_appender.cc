#include "sql/chunk_appender.h"

#include <vector>

#include "util/error.h"

namespace lakestream::sql {

namespace {

duckdb_type physical_type(duckdb_logical_type type) {
  duckdb_type id = duckdb_get_type_id(type);
  if (id != DUCKDB_TYPE_DECIMAL) return id;
  return duckdb_decimal_internal_type(type);
}

}  // namespace

ChunkAppender::ChunkAppender(Connection& con, const std::string& table) : table_(table) {
  if (duckdb_appender_create(con.handle(), nullptr, table.c_str(), &appender_) == DuckDBError) {
    std::string msg = duckdb_appender_error(appender_) ? duckdb_appender_error(appender_) : "unknown error";
    duckdb_appender_destroy(&appender_);
    throw Error("cannot append to " + table + ": " + msg);
  }
  columns_ = duckdb_appender_column_count(appender_);
  std::vector<duckdb_logical_type> types;
  for (size_t c = 0; c < columns_; c++) {
    types.push_back(duckdb_appender_column_type(appender_, c));
    storage_.push_back(physical_type(types.back()));
  }
  chunk_ = duckdb_create_data_chunk(types.data(), columns_);
  for (auto& t : types) duckdb_destroy_logical_type(&t);
  capacity_ = duckdb_vector_size();
  vectors_.resize(columns_);
  data_.resize(columns_);
  validity_.resize(columns_);
  start_chunk();
}

ChunkAppender::~ChunkAppender() {
  if (chunk_) duckdb_destroy_data_chunk(&chunk_);
  if (appender_) duckdb_appender_destroy(&appender_);
}

duckdb_type ChunkAppender::storage_type(size_t column) const { return storage_.at(column); }

void ChunkAppender::start_chunk() {
  duckdb_data_chunk_reset(chunk_);
  for (size_t c = 0; c < columns_; c++) {
    vectors_[c] = duckdb_data_chunk_get_vector(chunk_, c);
    duckdb_vector_ensure_validity_writable(vectors_[c]);
    data_[c] = duckdb_vector_get_data(vectors_[c]);
    validity_[c] = duckdb_vector_get_validity(vectors_[c]);
  }
  row_ = 0;
}

void ChunkAppender::set_text(size_t column, const char* data, size_t size) {
  duckdb_vector_assign_string_element_len(vectors_[column], row_, data, size);
  duckdb_validity_set_row_valid(validity_[column], row_);
}

void ChunkAppender::set_null(size_t column) { duckdb_validity_set_row_invalid(validity_[column], row_); }

void ChunkAppender::end_row() {
  row_++;
  appended_++;
  if (row_ == capacity_) append_chunk();
}

void ChunkAppender::append_chunk() {
  if (row_ == 0) return;
  duckdb_data_chunk_set_size(chunk_, row_);
  if (duckdb_append_data_chunk(appender_, chunk_) == DuckDBError) {
    const char* msg = duckdb_appender_error(appender_);
    throw Error("cannot append into " + table_ + ": " + (msg ? msg : "unknown error"));
  }
  start_chunk();
}

void ChunkAppender::flush() {
  append_chunk();
  if (duckdb_appender_flush(appender_) == DuckDBError) {
    const char* msg = duckdb_appender_error(appender_);
    throw Error("cannot flush into " + table_ + ": " + (msg ? msg : "unknown error"));
  }
}

}  // namespace lakestream::sql
