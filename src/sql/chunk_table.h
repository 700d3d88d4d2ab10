// Rows held in memory as DuckDB data chunks, written a value at a time straight into the
// chunks' column vectors and read by SQL through a table function that hands the chunks over
// without copying them. For the bulk of an ingest batch: appending to a temporary table kept
// statistics on every value and copied every string into table storage and out again, 10% of
// the ingest's time.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sql/duckdb.h"

namespace lakestream::sql {

class ChunkTable {
 public:
  // `columns` are names and DuckDB types ("BIGINT", "DECIMAL(18,2)", "TIMESTAMPTZ", ...).
  ChunkTable(Connection& con, const std::vector<std::pair<std::string, std::string>>& columns);
  ~ChunkTable();
  ChunkTable(const ChunkTable&) = delete;
  ChunkTable& operator=(const ChunkTable&) = delete;

  // The physical type DuckDB stores column `column` as (a decimal as its integer width).
  duckdb_type storage_type(size_t column) const;

  // Set column `column` of the current row. A row may be written over until end_row(). The
  // setters must match each column's physical type (INTEGER int32, BIGINT/TIMESTAMPTZ/
  // DECIMAL(10..18) int64, VARCHAR text, ...).
  template <typename T>
  void set(size_t column, T value) {
    static_cast<T*>(data_[column])[row_] = value;
    duckdb_validity_set_row_valid(validity_[column], row_);
  }
  void set_text(size_t column, const char* data, size_t size);
  void set_null(size_t column);
  // The current row is complete.
  void end_row();
  size_t rows() const { return rows_; }

  // A FROM item that reads every row ended so far, in order: "lakestream_chunks(<id>)". Valid
  // while this table lives, on any connection of the same database.
  std::string scan_sql() const;

  // Used by the table function.
  const std::vector<std::pair<std::string, duckdb_logical_type>>& columns() const { return columns_; }
  const std::vector<duckdb_data_chunk>& chunks() const { return chunks_; }

 private:
  void start_chunk();

  uint64_t id_;
  std::vector<std::pair<std::string, duckdb_logical_type>> columns_;
  std::vector<duckdb_type> storage_;
  std::vector<duckdb_data_chunk> chunks_;  // full chunks, then the one being written
  size_t capacity_ = 0;
  size_t row_ = 0;  // in the last chunk
  size_t rows_ = 0;
  std::vector<duckdb_vector> vectors_;
  std::vector<void*> data_;
  std::vector<uint64_t*> validity_;
};

}  // namespace lakestream::sql
