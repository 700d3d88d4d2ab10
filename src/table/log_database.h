// The one DuckDB a process reads and writes the Delta log's Parquet with (checkpoints, their
// sidecars), opened with the first use and kept. Opening and closing an instance for each one was
// most of a checkpoint's cost (57 CPU-ms a checkpoint written, against 9 through a kept one): its
// worker threads started and stopped each time, beside every stage of a continuous run. One
// thread; the callers (the stages of a continuous run, each with its tables) take turns.
#pragma once

#include <mutex>

#include "sql/duckdb.h"

namespace lakestream::delta {

class LogDatabase {
 public:
  static LogDatabase& instance();
  // The connection, for as long as `turn` is held.
  sql::Connection& connection(std::unique_lock<std::mutex>& turn);

 private:
  LogDatabase() = default;
  std::mutex mutex_;
  sql::Database db_;
  sql::Connection con_{db_};
};

}  // namespace lakestream::delta
