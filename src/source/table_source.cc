#include "source/table_source.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "table/parquet_file.h"
#include "util/cpu_profile.h"
#include "util/error.h"

namespace lakestream {

TableChanges read_table_changes(const std::string& table_path, int64_t from_version, int64_t to_version) {
  CpuScope cpu_scope("read_table_changes");
  TableChanges changes;
  changes.from_version = from_version;
  changes.to_version = to_version;
  changes.shape = delta::load_table_shape(table_path, to_version);
  if (to_version < from_version) return changes;
  for (auto& commit : delta::read_commits(table_path, from_version, to_version)) {
    for (const auto& removed : commit.removes)
      if (removed.data_change)
        throw Error("table " + table_path + " is not append-only: version " + std::to_string(commit.version) +
                    " deleted or rewrote rows (" + removed.path +
                    "). A latest or window stream reads an append-only table; read the table this one is built from, "
                    "or start the stream over with a new checkpoint.");
    bool added_rows = false;
    for (auto& add : commit.adds) {
      if (!add.data_change) continue;  // compaction: the same rows again
      add.version = commit.version;
      changes.added.push_back(add);
      added_rows = true;
    }
    if (added_rows && commit.commit_info.contains("timestamp") && commit.commit_info["timestamp"].is_number_integer()) {
      int64_t at = commit.commit_info["timestamp"].get<int64_t>();
      if (!changes.oldest_commit_ms || at < *changes.oldest_commit_ms) changes.oldest_commit_ms = at;
    }
  }
  changes.shape.files = changes.added;
  return changes;
}

int64_t last_version_of_batch(const std::string& table_path, int64_t from_version, int64_t until, int64_t max_files) {
  CpuScope cpu_scope("last_version_of_batch");
  int64_t to = from_version - 1;
  int64_t files = 0;
  // Read the log in steps of max_files versions: a backlog of many versions is not read whole
  // for each batch (a version adds at least one file, unless it only compacts or changes metadata).
  while (to < until) {
    int64_t step_end = std::min(until, to + std::max<int64_t>(1, max_files));
    for (const auto& commit : delta::read_commits(table_path, to + 1, step_end)) {
      int64_t added = 0;
      for (const auto& add : commit.adds) added += add.data_change ? 1 : 0;
      if (to >= from_version && files + added > max_files) return to;
      files += added;
      to = commit.version;
    }
  }
  return to;
}

std::optional<int64_t> rows_by_statistics(const TableChanges& changes) {
  int64_t rows = 0;
  for (const auto& add : changes.added) {
    auto live = add.live_rows();
    if (!live) return std::nullopt;
    rows += *live;
  }
  return rows;
}

std::string changes_scan_sql(const TableChanges& changes) { return delta::scan_sql(changes.shape); }

}  // namespace lakestream
