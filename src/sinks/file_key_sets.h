// Which values of an integer key each data file of a table holds: so that a copy-on-write merge
// reads only the files that hold one of its batch's keys. Min/max statistics cannot say that once
// keys come out of order: a file holding one old key among new ones spans the range between them,
// and with updates of old keys here and there (an order that moves on weeks after it was placed)
// every file spans nearly every key, so each batch read the keys of the whole table and cost
// more as the table grew. A file is written once and never changes, so its set is read once (its
// key column only), when a batch first finds the file among those its statistics allow, and
// forgotten when the file leaves the table.
//
// A set is kept as runs of consecutive values: keys that rise (orders, invoices) are a few runs a
// file, scattered ones 16 bytes each. Past a budget (an eighth of the memory budget, a table of
// scattered keys in the hundreds of millions) the sets are let go and the statistics alone decide,
// as without them. Nothing is stored: a new run reads the sets again as it needs them.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream {

class FileKeySets {
 public:
  // `budget_bytes` 0: an eighth of the machine's memory budget (sql/memory_budget.h).
  explicit FileKeySets(int64_t budget_bytes = 0);

  // Whether sets can be kept of this key column: integer types, whose values a 64-bit integer holds.
  static bool serves(const delta::Column& key);

  // Of `candidates` (files of `table`, read in its metadata's shape), those that hold a value of
  // column `key` that a row of `incoming` (a relation) has, and those holding a NULL key when a
  // row of `incoming` has one. Reads the key column of each candidate it has no set of; forgets
  // the sets of files no longer in `table`. Past the budget, or for fewer than two candidates
  // (the merge reads one as cheaply as its set), returns `candidates` as they are.
  std::vector<delta::AddFile> holding(sql::Connection& con, const delta::Snapshot& table,
                                      const std::vector<delta::AddFile>& candidates, const std::string& incoming,
                                      const std::string& key);

  int64_t memory_bytes() const;
  // How many files' sets it holds.
  int64_t files() const { return static_cast<int64_t>(by_file_.size()); }
  // How many files' key columns it has read, in all.
  int64_t files_read() const { return files_read_; }

 private:
  struct Keys {
    std::vector<std::pair<int64_t, int64_t>> runs;  // [first, last], ascending, apart
    bool has_null = false;
  };
  // The distinct values and whether a NULL is among them, of the BIGINT column of `sql`'s result.
  static std::pair<std::vector<int64_t>, bool> sorted_values(sql::Connection& con, const std::string& sql);
  static bool meet(const Keys& file, const std::vector<int64_t>& sorted);

  int64_t budget_bytes_;
  std::string key_;  // the column the sets are of (another one: read again)
  std::unordered_map<std::string, Keys> by_file_;  // by AddFile::logical_key()
  int64_t runs_ = 0;
  int64_t files_read_ = 0;
  bool over_budget_ = false;
};

}  // namespace lakestream
