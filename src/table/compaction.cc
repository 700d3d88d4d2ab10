#include "table/compaction.h"

#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "table/column_mapping.h"
#include "table/commit_retry.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"
#include "table/seen_batches.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

// A group worth a rewrite: 2+ files become one, or a file sheds the rows its deletion vector
// deletes (the rewrite purges the vector).
bool worth_rewriting(const std::vector<AddFile>& group) {
  return group.size() > 1 || (group.size() == 1 && group.front().deletion_vector);
}

// Packs `files` (in the order they were added) into groups of at most `target_bytes`, keeping
// those worth a rewrite.
void pack_groups(const std::vector<AddFile>& files, int64_t target_bytes, std::vector<std::vector<AddFile>>& groups) {
  std::vector<AddFile> group;
  int64_t bytes = 0;
  for (const auto& file : files) {
    if (!group.empty() && bytes + file.size > target_bytes) {
      if (worth_rewriting(group)) groups.push_back(std::move(group));
      group.clear();
      bytes = 0;
    }
    group.push_back(file);
    bytes += file.size;
  }
  if (worth_rewriting(group)) groups.push_back(std::move(group));
}

// The size tier of a small file: 0 for [target/m, target), 1 for [target/m^2, target/m), ...;
// the files smallest of all share the last tier.
int size_tier(int64_t size, const AutoCompaction& settings) {
  constexpr int kLastTier = 12;
  double floor = static_cast<double>(settings.target_bytes);
  for (int tier = 0; tier < kLastTier; tier++) {
    floor /= static_cast<double>(settings.min_files);
    if (static_cast<double>(size) >= floor) return tier;
  }
  return kLastTier;
}

// Groups of small files to merge, each within one partition, and the files with deletion
// vectors, whatever their size: OPTIMIZE purges the vectors.
std::vector<std::vector<AddFile>> plan_groups(const Snapshot& snapshot, int64_t target_bytes) {
  std::map<PartitionValues, std::vector<AddFile>> small_by_partition;
  for (const auto& file : snapshot.files)
    if (file.size < target_bytes || file.deletion_vector) small_by_partition[file.partition_values].push_back(file);
  std::vector<std::vector<AddFile>> groups;
  for (const auto& [partition, files] : small_by_partition) pack_groups(files, target_bytes, groups);
  return groups;
}

// A clustered table (the clustering feature; its columns in the delta.clustering domain, by
// physical name): merged rows are written in the order of its clustering columns, so that each
// new file covers a narrow range of them and readers skip files by their stats. A sort, not
// Spark's Hilbert curve: with several columns the first ones cluster best. Nested clustering
// columns are left out of the order.
std::string clustering_order(const Snapshot& snapshot) {
  auto domain = snapshot.domains.find("delta.clustering");
  if (domain == snapshot.domains.end()) return "";
  auto configuration = nlohmann::json::parse(domain->second, nullptr, false);
  if (!configuration.is_object() || !configuration.contains("clusteringColumns") ||
      !configuration["clusteringColumns"].is_array())
    return "";
  std::string order;
  for (const auto& path : configuration["clusteringColumns"]) {
    if (!path.is_array() || path.size() != 1 || !path[0].is_string()) continue;
    for (const auto& column : snapshot.metadata.schema)
      if (physical_name(snapshot.metadata, column) == path[0].get<std::string>())
        order += (order.empty() ? "" : ", ") + sql::quote_ident(column.name);
  }
  return order.empty() ? "" : " ORDER BY " + order;
}

// A window table's files merged keep which source batch each row had seen (table/seen_batches.h):
// only files with the tag are merged (one written before tags is left as it is), their rows are
// written in the order of the files and of their rows (not clustered), and the new file's tag
// lists the runs. `select_columns` is the table's columns; returns the new file's select and
// fills `runs`, from the temporary table of the group's rows with their runs.
std::string rows_keeping_seen_batches(sql::Connection& con, const Snapshot& group_files, const std::string& select_columns,
                                      std::vector<SeenBatchRun>& runs) {
  con.exec("CREATE OR REPLACE TEMP TABLE compaction_runs (file VARCHAR, ordinal BIGINT, first_row BIGINT, "
           "end_row BIGINT, batch BIGINT)");
  {
    sql::Appender appender(con, "compaction_runs");
    const Table& table = group_files.table;
    int64_t ordinal = 0;
    for (const auto& file : group_files.files) {
      auto file_runs = seen_batches_of(file);
      if (!file_runs) throw Error("compacting " + table.path() + ": " + file.path + " has no readable " + kSeenBatchesTag + " tag");
      for (size_t i = 0; i < file_runs->size(); i++) {
        appender.append_text(readable_path(table, file.path, file.size));
        appender.append_int64(ordinal++);
        appender.append_int64((*file_runs)[i].first_row);
        appender.append_int64(i + 1 < file_runs->size() ? (*file_runs)[i + 1].first_row : INT64_MAX);
        appender.append_int64((*file_runs)[i].batch);
        appender.end_row();
      }
    }
  }
  con.exec("CREATE OR REPLACE TEMP TABLE compaction_rows AS SELECT s.*, r.ordinal AS __run, r.batch AS __batch FROM (" +
           scan_sql_with_positions(group_files) + ") s JOIN compaction_runs r ON s.__lakestream_file = r.file AND "
           "s.__lakestream_row >= r.first_row AND s.__lakestream_row < r.end_row");
  // The runs of the new file: its rows in this order, adjacent runs of one batch made one.
  sql::Rows counts = con.query("SELECT __batch, count(*) AS n FROM compaction_rows GROUP BY __run, __batch ORDER BY __run");
  int64_t row = 0;
  runs.clear();
  for (size_t i = 0; i < counts.size(); i++) {
    int64_t batch = std::stoll(counts.text(i, "__batch"));
    if (runs.empty() || runs.back().batch != batch) runs.push_back({row, batch});
    row += std::stoll(counts.text(i, "n"));
  }
  return "SELECT " + select_columns + " FROM compaction_rows ORDER BY __run, __lakestream_row";
}

int64_t rows_in(sql::Connection& con, const Snapshot& files) {
  return con.scalar_int("SELECT count(*) FROM (" + scan_sql(files) + ")");
}

// True when a commit after `read_version` removed one of `inputs` (by path: a delete that only
// wrote a deletion vector removes it too): the compaction must be redone.
bool inputs_removed_since(const Table& table, int64_t read_version, const std::map<std::string, AddFile>& inputs) {
  int64_t latest = latest_version(table);
  if (latest <= read_version) return false;
  for (const auto& commit : read_commits(table, read_version + 1, latest))
    for (const auto& removed : commit.removes)
      if (inputs.count(removed.path)) return true;
  return false;
}

// What to merge in a snapshot, and the target size the commit records.
using Planner = std::function<std::vector<std::vector<AddFile>>(const Snapshot&, int64_t& target_bytes)>;

// The merged files of one plan, written and not yet committed.
struct MergedFiles {
  int64_t planned_at = -1;             // the version planned on
  int64_t target_bytes = 0;
  CompactionResult result;
  std::vector<AddFile> written;
  std::map<std::string, AddFile> inputs;  // by path
};

// Plans on `snapshot` and writes each group's rows to one new file (none when nothing is due).
MergedFiles merge_groups(sql::Connection& con, const Table& table, const Snapshot& snapshot,
                         const Planner& plan, bool keep_seen_batches) {
  MergedFiles merged;
  merged.planned_at = snapshot.version;
  Snapshot candidates = snapshot;
  if (keep_seen_batches)
    std::erase_if(candidates.files, [](const AddFile& file) { return !seen_batches_of(file).has_value(); });
  for (const auto& group : plan(candidates, merged.target_bytes)) {
    Snapshot group_files = with_files(snapshot, group);
    // Partition columns live in the log, not in the files: the new file goes to the same folder.
    std::string column_list;
    for (const auto& column : snapshot.metadata.schema)
      column_list += (column_list.empty() ? "" : ", ") + sql::quote_ident(column.name);
    std::vector<SeenBatchRun> runs;
    std::string rows = keep_seen_batches
                           ? rows_keeping_seen_batches(con, group_files, column_list, runs)
                           : "SELECT " + column_list + " FROM (" + scan_sql(group_files) + ")" + clustering_order(snapshot);
    AddFile file = write_data_file(con, table, snapshot.metadata, rows, snapshot.metadata.schema,
                                   partition_values_by_name(snapshot.metadata, group.front().partition_values));
    if (keep_seen_batches) {
      con.exec("DROP TABLE IF EXISTS compaction_rows; DROP TABLE IF EXISTS compaction_runs");
      if (!runs.empty()) file.tags[kSeenBatchesTag] = seen_batches_text(runs);
    }
    int64_t expected = rows_in(con, group_files);
    if (file.path.empty() || rows_in(con, with_files(snapshot, {file})) != expected) {
      if (!file.path.empty()) remove_table_file(table, file.path);
      for (const auto& w : merged.written) remove_table_file(table, w.path);
      throw Error("compacting " + table.path() + " wrote a file that does not hold the rows of the files it replaces; "
                  "nothing was committed");
    }
    file.data_change = false;
    merged.written.push_back(file);
    merged.result.files_added++;
    merged.result.bytes_added += file.size;
    for (const auto& f : group) {
      merged.inputs[f.path] = f;
      merged.result.files_removed++;
      merged.result.bytes_removed += f.size;
    }
  }
  if (!merged.written.empty()) fault_point("after_data_files");
  return merged;
}

CompactionResult compact_with(sql::Connection& con, const Table& table, const Planner& plan,
                              bool keep_seen_batches) {
  std::optional<MergedFiles> merged;
  return commit_with_retry("compact " + table.path(), [&]() -> CompactionResult {
    Snapshot snapshot = load_snapshot(table);
    if (!snapshot.exists()) throw Error("there is no table at " + table.path() + " yet; run the stream that writes it first");
    // A writer that only appended meanwhile does not matter to the merged files; one that removed
    // a file they replace does: they are orphans then, never referenced by a commit, dropped, and
    // the plan is made again on the new snapshot.
    if (merged && inputs_removed_since(table, merged->planned_at, merged->inputs)) {
      for (const auto& file : merged->written) remove_table_file(table, file.path);
      merged.reset();
    }
    if (!merged) merged = merge_groups(con, table, snapshot, plan, keep_seen_batches);
    if (merged->written.empty()) return CompactionResult{};

    Commit commit(snapshot);
    for (const auto& [path, input] : merged->inputs) commit.remove(input, false);
    for (const auto& file : merged->written) commit.add(file);
    commit.set_operation("OPTIMIZE");
    commit.set_commit_info({{"operationParameters", {{"targetSize", merged->target_bytes}}}});
    fault_point("before_compaction_commit");
    CompactionResult result = merged->result;
    result.version = commit.publish();
    fault_point("after_compaction_commit");
    return result;
  });
}

}  // namespace

CompactionResult compact_table(sql::Connection& con, const Table& table, int64_t target_bytes,
                               bool keep_seen_batches) {
  if (target_bytes <= 0) throw Error("the target file size must be more than 0 bytes");
  return compact_with(
      con, table,
      [&](const Snapshot& snapshot, int64_t& target) {
        target = target_bytes;
        return plan_groups(snapshot, target_bytes);
      },
      keep_seen_batches);
}

std::optional<AutoCompaction> table_auto_compaction(const std::map<std::string, std::string>& configuration,
                                                    AutoCompaction settings) {
  if (table_property_is(configuration, "delta.autoOptimize.autoCompact", "false")) return std::nullopt;
  // Row tracking on: a merge would move rows to new files, whose ids lakestream cannot keep.
  if (table_property_is(configuration, "delta.enableRowTracking", "true")) return std::nullopt;
  if (auto size = configuration.find("delta.targetFileSize"); size != configuration.end())
    if (auto bytes = parse_byte_size(size->second); bytes && *bytes > 0) settings.target_bytes = *bytes;
  return settings;
}

std::vector<std::vector<AddFile>> due_compactions(const Snapshot& snapshot, const AutoCompaction& settings) {
  std::map<std::pair<PartitionValues, int>, std::vector<AddFile>> by_tier;
  // A file of half the target or more is done: two of them would not fit in one.
  for (const auto& file : snapshot.files)
    if (file.size < settings.target_bytes / 2)
      by_tier[{file.partition_values, size_tier(file.size, settings)}].push_back(file);
  std::vector<std::vector<AddFile>> groups;
  for (const auto& [tier, files] : by_tier)
    if (static_cast<int64_t>(files.size()) >= settings.min_files) pack_groups(files, settings.target_bytes, groups);
  return groups;
}

CompactionResult compact_small_files(sql::Connection& con, const Table& table,
                                     AutoCompaction pipeline_settings, GroupsTaken taken, bool keep_seen_batches) {
  return compact_with(
      con, table,
      [&](const Snapshot& snapshot, int64_t& target) {
        auto settings = table_auto_compaction(snapshot.metadata.configuration, pipeline_settings);
        if (!settings) return std::vector<std::vector<AddFile>>{};
        target = settings->target_bytes;
        return groups_taken(due_compactions(snapshot, *settings), taken);
      },
      keep_seen_batches);
}

std::vector<std::vector<AddFile>> groups_taken(std::vector<std::vector<AddFile>> groups, GroupsTaken taken) {
  if (taken == GroupsTaken::All) return groups;
  std::vector<std::vector<AddFile>> kept;
  for (auto& group : groups) {
    int64_t bytes = 0;
    for (const auto& file : group) bytes += file.size;
    if ((bytes < kSmallGroupBytes) == (taken == GroupsTaken::Small)) kept.push_back(std::move(group));
  }
  return kept;
}

}  // namespace lakestream::delta
