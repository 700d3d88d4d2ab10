#include "table/compaction.h"

#include <map>
#include <set>

#include "table/delta_table.h"
#include "table/parquet_file.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

using PartitionValues = std::map<std::string, std::optional<std::string>>;

// Groups of small files to merge, each within one partition; only groups of 2+ files.
std::vector<std::vector<AddFile>> plan_groups(const Snapshot& snapshot, int64_t target_bytes) {
  std::map<PartitionValues, std::vector<AddFile>> small_by_partition;
  for (const auto& file : snapshot.files)
    if (file.size < target_bytes) small_by_partition[file.partition_values].push_back(file);
  std::vector<std::vector<AddFile>> groups;
  for (auto& [partition, files] : small_by_partition) {
    std::vector<AddFile> group;
    int64_t bytes = 0;
    for (auto& file : files) {
      if (!group.empty() && bytes + file.size > target_bytes) {
        if (group.size() > 1) groups.push_back(std::move(group));
        group.clear();
        bytes = 0;
      }
      group.push_back(file);
      bytes += file.size;
    }
    if (group.size() > 1) groups.push_back(std::move(group));
  }
  return groups;
}

int64_t rows_in(sql::Connection& con, const Snapshot& files) {
  return con.scalar_int("SELECT count(*) FROM (" + scan_sql(files) + ")");
}

// True when a commit after `read_version` removed one of `inputs`: the compaction must be redone.
bool inputs_removed_since(const std::string& table_path, int64_t read_version, const std::set<std::string>& inputs) {
  int64_t latest = latest_version(table_path);
  if (latest <= read_version) return false;
  for (const auto& commit : read_commits(table_path, read_version + 1, latest))
    for (const auto& removed : commit.removes)
      if (inputs.count(removed.path)) return true;
  return false;
}

}  // namespace

CompactionResult compact_table(sql::Connection& con, const std::string& table_path, int64_t target_bytes) {
  if (target_bytes <= 0) throw Error("the target file size must be more than 0 bytes");
  constexpr int kAttempts = 20;
  for (int attempt = 0; attempt < kAttempts; attempt++) {
    Snapshot snapshot = load_snapshot(table_path);
    if (!snapshot.exists()) throw Error("there is no table at " + table_path + " yet; run the stream that writes it first");
    CompactionResult result;
    auto groups = plan_groups(snapshot, target_bytes);
    if (groups.empty()) return result;

    std::vector<AddFile> written;
    std::set<std::string> inputs;
    for (const auto& group : groups) {
      Snapshot group_files = snapshot;
      group_files.files = group;
      // Partition columns live in the log, not in the files: the new file goes to the same folder.
      std::string column_list;
      for (const auto& column : snapshot.metadata.schema)
        column_list += (column_list.empty() ? "" : ", ") + sql::quote_ident(column.name);
      AddFile file = write_data_file(con, table_path, "SELECT " + column_list + " FROM (" + scan_sql(group_files) + ")",
                                     snapshot.metadata.schema, group.front().partition_values);
      int64_t expected = rows_in(con, group_files);
      Snapshot new_file = snapshot;
      new_file.files = {file};
      if (file.path.empty() || rows_in(con, new_file) != expected) {
        if (!file.path.empty()) remove_table_file(table_path, file.path);
        for (const auto& w : written) remove_table_file(table_path, w.path);
        throw Error("compacting " + table_path + " wrote a file that does not hold the rows of the files it replaces; "
                    "nothing was committed");
      }
      file.data_change = false;
      written.push_back(file);
      result.files_added++;
      result.bytes_added += file.size;
      for (const auto& f : group) {
        inputs.insert(f.path);
        result.files_removed++;
        result.bytes_removed += f.size;
      }
    }
    fault_point("after_data_files");

    // Put-if-absent; a writer that only appended meanwhile does not matter to this commit.
    int64_t read_version = snapshot.version;
    for (;;) {
      Snapshot base = load_snapshot(table_path, read_version);
      Commit commit(base);
      for (const auto& path : inputs) commit.remove(path, false);
      for (const auto& file : written) commit.add(file);
      commit.set_operation("OPTIMIZE");
      commit.set_commit_info({{"operationParameters", {{"targetSize", target_bytes}}}});
      try {
        result.version = commit.publish();
        return result;
      } catch (const CommitConflict&) {
        if (inputs_removed_since(table_path, snapshot.version, inputs)) break;
        read_version = latest_version(table_path);
      }
    }
    // Another writer removed a file this compaction replaces: its files are orphans, never
    // referenced by a commit; drop them and plan again on the new snapshot.
    for (const auto& file : written) remove_table_file(table_path, file.path);
  }
  throw Error("could not compact " + table_path + " after " + std::to_string(kAttempts) +
              " attempts: other writers keep rewriting its files");
}

}  // namespace lakestream::delta
