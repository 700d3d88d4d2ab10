// Appends rows to a DuckDB table a data chunk at a time, writing each value straight into the
// chunk's column vectors: for the bulk of a micro-batch, where the per-value Appender's checks
// and conversions cost more than the values themselves.
#pragma once

#include <duckdb.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sql/duckdb.h"

namespace lakestream::sql {

class ChunkAppender {
 public:
  // Appends to `table` (its columns in order); the setters below must match each column's
  // physical type (INTEGER int32, BIGINT/TIMESTAMPTZ/DECIMAL(10..18) int64, VARCHAR text, ...).
  ChunkAppender(Connection& con, const std::string& table);
  ~ChunkAppender();
  ChunkAppender(const ChunkAppender&) = delete;
  ChunkAppender& operator=(const ChunkAppender&) = delete;

  // The physical type DuckDB stores column `column` as (a decimal as its integer width).
  duckdb_type storage_type(size_t column) const;

  // Set column `column` of the current row. A row may be written over until end_row().
  template <typename T>
  void set(size_t column, T value) {
    static_cast<T*>(data_[column])[row_] = value;
    duckdb_validity_set_row_valid(validity_[column], row_);
  }
  void set_text(size_t column, const char* data, size_t size);
  void set_null(size_t column);
  // The current row is complete; a full chunk goes to the table.
  void end_row();
  // Appends what is pending and flushes the appender: the rows are in the table afterwards.
  void flush();
  size_t rows() const { return appended_; }

 private:
  void start_chunk();
  void append_chunk();

  duckdb_appender appender_ = nullptr;
  duckdb_data_chunk chunk_ = nullptr;
  std::string table_;
  size_t columns_ = 0;
  size_t capacity_ = 0;
  size_t row_ = 0;
  size_t appended_ = 0;
  std::vector<duckdb_type> storage_;
  std::vector<duckdb_vector> vectors_;
  std::vector<void*> data_;
  std::vector<uint64_t*> validity_;
};

}  // namespace lakestream::sql
