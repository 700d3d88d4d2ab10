#include "table/log_database.h"

namespace lakestream::delta {

LogDatabase& LogDatabase::instance() {
  // Built at first use and destroyed at exit before DuckDB's library (loaded earlier) goes.
  static LogDatabase kept;
  return kept;
}

sql::Connection& LogDatabase::connection(std::unique_lock<std::mutex>& turn) {
  turn = std::unique_lock<std::mutex>(mutex_);
  con_.keep_setting("threads", "1");
  return con_;
}

}  // namespace lakestream::delta
