#include "source/table_source.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "pipeline/change_columns.h"
#include "table/change_rows.h"
#include "table/parquet_file.h"
#include "table/table_files.h"
#include "util/cpu_profile.h"
#include "util/error.h"

namespace lakestream {

namespace {

// True when `commit` deletes or rewrites rows: it removes a file with dataChange (a compaction's
// removes have none).
bool changes_rows(const delta::CommitEntry& commit) {
  return std::any_of(commit.removes.begin(), commit.removes.end(), [](const delta::RemoveFile& r) { return r.data_change; });
}

void refuse_changed_rows(const std::string& table_path, const delta::CommitEntry& commit) {
  std::string removed;
  for (const auto& r : commit.removes)
    if (r.data_change && removed.empty()) removed = r.path;
  throw Error("table " + table_path + " is not append-only: version " + std::to_string(commit.version) +
              " deleted or rewrote rows (" + removed +
              "). A stream that reads appends stops there; set read = \"changes\" to read the table's change data feed (its "
              "writer needs change_data_feed = true), read = \"skip_changes\" to skip such versions, or read the table this "
              "one is built from");
}

// A version that changed rows without recording them in the feed (written while the feed was
// off) cannot be read as changes: its removed files say which files, not which rows, changed.
void require_recorded_changes(const std::string& table_path, const delta::CommitEntry& commit) {
  if (!commit.change_data.empty() || !changes_rows(commit)) return;
  // A file removed and added again with a new deletion vector is a feed reader's delete of the
  // rows the vector adds: readable without change data files.
  bool only_vectors = std::all_of(commit.removes.begin(), commit.removes.end(), [&](const delta::RemoveFile& r) {
    return !r.data_change || std::any_of(commit.adds.begin(), commit.adds.end(), [&](const delta::AddFile& a) { return a.path == r.path; });
  });
  bool only_deletes = std::none_of(commit.adds.begin(), commit.adds.end(), [](const delta::AddFile& a) { return a.data_change; });
  if (only_vectors || only_deletes) return;
  throw Error("version " + std::to_string(commit.version) + " of table " + table_path +
              " rewrote rows without writing its change data feed (the feed was off then), so which rows it changed is not "
              "known; read = \"changes\" reads versions written with change_data_feed = true: start this stream over with a "
              "new checkpoint after the feed is on, or set read = \"skip_changes\"");
}

// Appends the files `commit` added with dataChange (a compaction's are the same rows again) to
// `into`, each with the commit's version; true when it added any.
bool take_added_files(const delta::CommitEntry& commit, std::vector<delta::AddFile>& into) {
  bool any = false;
  for (const auto& add : commit.adds) {
    if (!add.data_change) continue;
    into.push_back(add);
    into.back().version = commit.version;
    any = true;
  }
  return any;
}

}  // namespace

std::vector<delta::Column> with_change_columns(std::vector<delta::Column> columns) {
  for (const auto& field : change_columns()) columns.push_back({field.name, field.delta_type(), true});
  return columns;
}

TableChanges read_table_changes(const delta::Table& table, int64_t from_version, int64_t to_version, SourceRead read) {
  CpuScope cpu_scope("read_table_changes");
  TableChanges changes;
  changes.from_version = from_version;
  changes.to_version = to_version;
  changes.read = read;
  changes.shape = delta::load_table_shape(table, to_version);
  changes.columns = read == SourceRead::Changes ? with_change_columns(changes.shape.metadata.schema) : changes.shape.metadata.schema;
  std::vector<delta::CommitEntry> commits;
  if (to_version >= from_version) commits = delta::read_commits(table, from_version, to_version);
  for (const auto& commit : commits) {
    bool added_rows = false;
    if (read == SourceRead::Changes) {
      require_recorded_changes(table.path(), commit);
      added_rows = !delta::change_feed_files(commit).empty();
    } else if (changes_rows(commit)) {
      if (read == SourceRead::Appends) refuse_changed_rows(table.path(), commit);
      continue;  // skip_changes: the whole version, its added rows too
    } else {
      added_rows = take_added_files(commit, changes.added);
    }
    auto at = delta::commit_time_ms(commit);
    if (added_rows && at && (!changes.oldest_commit_ms || *at < *changes.oldest_commit_ms)) changes.oldest_commit_ms = at;
  }
  changes.shape.files = changes.added;
  if (read == SourceRead::Changes) changes.changes_sql = delta::change_rows_sql(changes.shape, commits);
  return changes;
}

std::string all_rows_read_sql(const delta::Snapshot& snapshot, SourceRead read) {
  std::vector<delta::CommitEntry> commits = delta::read_commits(snapshot.table, 0, snapshot.version);
  delta::Snapshot appended = snapshot;  // skip_changes: the files of the versions read
  appended.files.clear();
  std::vector<std::string> needed;
  for (const auto& commit : commits) {
    if (read == SourceRead::Changes) {
      require_recorded_changes(snapshot.table.path(), commit);
      for (auto& key : delta::change_feed_files(commit)) needed.push_back(std::move(key));
    } else if (!changes_rows(commit)) {
      take_added_files(commit, appended.files);
    }
  }
  for (const auto& file : appended.files) needed.push_back(file.path);
  auto missing = delta::missing_table_files(snapshot.table, needed);
  if (!missing.empty())
    throw Error("vacuum has deleted " + missing.front() + (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : "") +
                ", which the stream read from " + snapshot.table.path() + ", so what it read cannot be read again");
  return read == SourceRead::Changes ? delta::change_rows_sql(snapshot, commits) : delta::scan_sql(appended);
}

int64_t last_version_of_batch(const delta::Table& table, int64_t from_version, int64_t until, int64_t max_files) {
  CpuScope cpu_scope("last_version_of_batch");
  int64_t to = from_version - 1;
  int64_t files = 0;
  // Read the log in steps of max_files versions: a backlog of many versions is not read whole
  // for each batch (a version adds at least one file, unless it only compacts or changes metadata).
  while (to < until) {
    int64_t step_end = std::min(until, to + std::max<int64_t>(1, max_files));
    for (const auto& commit : delta::read_commits(table, to + 1, step_end)) {
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
  if (changes.read == SourceRead::Changes) return std::nullopt;
  int64_t rows = 0;
  for (const auto& add : changes.added) {
    auto live = add.live_rows();
    if (!live) return std::nullopt;
    rows += *live;
  }
  return rows;
}

std::string changes_scan_sql(const TableChanges& changes) {
  return changes.read == SourceRead::Changes ? changes.changes_sql : delta::scan_sql(changes.shape);
}

}  // namespace lakestream
