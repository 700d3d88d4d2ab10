// How much memory one of lakestream's own DuckDB databases may take before it spills to disk.
// DuckDB's default is 80% of the machine's RAM, and `check` over a long run's bronze (36M rows
// after an hour at 10,000 events/s) took all of it: 19.7 GB on a 24 GiB machine. A command that
// reads a whole lake gets a budget instead, and a folder of its own to spill into, removed after.
#pragma once

#include <cstdint>
#include <string>

#include "sql/duckdb.h"

namespace lakestream::sql {

// A quarter of the machine's physical memory, at least 1 GiB: what check and recount take by
// default (--memory-limit).
int64_t default_memory_budget();

// A spill folder under $TMPDIR (or /tmp), created on construction and removed with what DuckDB
// left in it on destruction; applies the budget and the folder to a connection's database.
class MemoryBudget {
 public:
  // `bytes` 0: default_memory_budget().
  explicit MemoryBudget(int64_t bytes);
  ~MemoryBudget();
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  void apply(Connection& con) const;
  int64_t bytes() const { return bytes_; }
  const std::string& spill_folder() const { return folder_; }

 private:
  int64_t bytes_;
  std::string folder_;
};

}  // namespace lakestream::sql
