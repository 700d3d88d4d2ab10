#include "sinks/file_key_sets.h"

#include <algorithm>
#include <unordered_set>

#include "sql/memory_budget.h"
#include "sql/result_chunks.h"
#include "table/parquet_file.h"
#include "util/cpu_profile.h"

namespace lakestream {

FileKeySets::FileKeySets(int64_t budget_bytes)
    : budget_bytes_(budget_bytes > 0 ? budget_bytes : sql::default_memory_budget() / 8) {}

bool FileKeySets::serves(const delta::Column& key) {
  if (!key.type.is_string()) return false;
  const std::string type = key.type.get<std::string>();
  return type == "byte" || type == "short" || type == "integer" || type == "long";
}

std::pair<std::vector<int64_t>, bool> FileKeySets::sorted_values(sql::Connection& con, const std::string& sql) {
  std::vector<int64_t> values;
  bool has_null = false;
  sql::for_each_chunk(con, sql, [&](duckdb_data_chunk chunk, idx_t rows) {
    const auto* data = sql::column_data<int64_t>(chunk, 0);
    for (idx_t i = 0; i < rows; i++) {
      if (sql::valid(chunk, 0, i)) values.push_back(data[i]);
      else has_null = true;
    }
  });
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return {std::move(values), has_null};
}

// Whether a value of `sorted` (ascending, distinct) falls in one of the file's runs: each of the
// fewer looked up in the more by a binary search.
bool FileKeySets::meet(const Keys& file, const std::vector<int64_t>& sorted) {
  const auto& runs = file.runs;
  if (runs.empty() || sorted.empty()) return false;
  if (sorted.size() <= runs.size()) {
    for (int64_t value : sorted) {
      auto after = std::upper_bound(runs.begin(), runs.end(), value,
                                    [](int64_t v, const std::pair<int64_t, int64_t>& run) { return v < run.first; });
      if (after != runs.begin() && std::prev(after)->second >= value) return true;
    }
    return false;
  }
  for (const auto& [first, last] : runs) {
    auto at = std::lower_bound(sorted.begin(), sorted.end(), first);
    if (at != sorted.end() && *at <= last) return true;
  }
  return false;
}

std::vector<delta::AddFile> FileKeySets::holding(sql::Connection& con, const delta::Snapshot& table,
                                                 const std::vector<delta::AddFile>& candidates, const std::string& incoming,
                                                 const std::string& key) {
  // One candidate (the file of the newest keys, which a service rewrites every batch) is read by
  // the merge's join as cheaply as its set would be: sets pay where statistics allow many files.
  if (over_budget_ || candidates.size() < 2) return candidates;
  CpuScope cpu_scope("file_key_sets.holding");
  if (key != key_) {
    by_file_.clear();
    runs_ = 0;
    key_ = key;
  }
  // The sets of files the table no longer holds go (a rewritten file is a new path).
  std::unordered_set<std::string> live;
  for (const auto& file : table.files) live.insert(file.logical_key());
  for (auto it = by_file_.begin(); it != by_file_.end();) {
    if (live.count(it->first)) {
      ++it;
      continue;
    }
    runs_ -= static_cast<int64_t>(it->second.runs.size());
    it = by_file_.erase(it);
  }
  const std::string column = "CAST(" + sql::quote_ident(key) + " AS BIGINT)";
  auto [wanted, wants_null] = sorted_values(con, "SELECT " + column + " FROM " + incoming + " AS __incoming");
  std::vector<delta::AddFile> holding;
  for (const auto& file : candidates) {
    auto found = by_file_.find(file.logical_key());
    if (found == by_file_.end()) {
      // Its live rows' keys (a deletion vector's rows left out), as runs of consecutive values.
      auto [values, has_null] =
          sorted_values(con, "SELECT " + column + " FROM (" + delta::scan_sql(delta::with_files(table, {file})) + ")");
      Keys keys;
      keys.has_null = has_null;
      for (int64_t value : values) {
        if (!keys.runs.empty() && keys.runs.back().second != INT64_MAX && keys.runs.back().second + 1 == value)
          keys.runs.back().second = value;
        else
          keys.runs.emplace_back(value, value);
      }
      files_read_++;
      runs_ += static_cast<int64_t>(keys.runs.size());
      found = by_file_.emplace(file.logical_key(), std::move(keys)).first;
      if (memory_bytes() > budget_bytes_) {
        // Too many scattered keys to hold: the statistics alone decide from now on.
        by_file_.clear();
        runs_ = 0;
        over_budget_ = true;
        return candidates;
      }
    }
    if ((wants_null && found->second.has_null) || meet(found->second, wanted)) holding.push_back(file);
  }
  return holding;
}

int64_t FileKeySets::memory_bytes() const {
  // A run's two values, and a file's entry (its key text and the map's node), about 128 bytes.
  return runs_ * static_cast<int64_t>(sizeof(std::pair<int64_t, int64_t>)) + static_cast<int64_t>(by_file_.size()) * 128;
}

}  // namespace lakestream
