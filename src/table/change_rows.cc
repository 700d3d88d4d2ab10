#include "table/change_rows.h"

#include <algorithm>

#include "table/column_mapping.h"
#include "table/parquet_file.h"
#include "table/table_files.h"

namespace lakestream::delta {

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

}  // namespace

std::optional<int64_t> commit_time_ms(const CommitEntry& commit) {
  for (const char* field : {"inCommitTimestamp", "timestamp"}) {
    auto it = commit.commit_info.find(field);
    if (it != commit.commit_info.end() && it->is_number_integer()) return it->get<int64_t>();
  }
  return std::nullopt;
}

std::vector<std::string> change_feed_files(const CommitEntry& commit) {
  std::vector<std::string> keys;
  for (const auto& file : commit.change_data) keys.push_back(file.path);
  if (!keys.empty()) return keys;
  for (const auto& file : commit.adds)
    if (file.data_change) keys.push_back(file.path);
  for (const auto& file : commit.removes)
    if (file.data_change) keys.push_back(file.path);
  return keys;
}

std::string change_rows_sql(const Snapshot& snapshot, const std::vector<CommitEntry>& commits) {
  const Metadata& metadata = snapshot.metadata;
  const Table& table = snapshot.table;
  std::string names;
  for (const auto& c : metadata.schema) names += (names.empty() ? "" : ", ") + q(c.name);
  std::string sql;
  auto append = [&](const std::string& select) { sql += (sql.empty() ? "" : " UNION ALL ") + select; };
  // The rows of `files` as the table reads them (their deletion vectors applied).
  auto rows_of = [&](const std::vector<AddFile>& files) {
    return "SELECT " + names + " FROM (" + scan_sql(with_files(snapshot, files)) + ")";
  };
  for (const auto& commit : commits) {
    auto at = commit_time_ms(commit);
    std::string version = std::to_string(commit.version) + "::BIGINT AS _commit_version, " +
                          (at ? "make_timestamptz(" + std::to_string(*at) + "::BIGINT * 1000)" : std::string("NULL::TIMESTAMPTZ")) +
                          " AS _commit_timestamp";
    if (!commit.change_data.empty()) {
      // A change data file holds the table's columns as data files do (physical names, no
      // partition columns: those are in its partition values), and _change_type.
      for (const auto& file : commit.change_data) {
        std::string columns;
        for (const auto& c : metadata.schema) {
          std::string value;
          if (std::find(metadata.partition_columns.begin(), metadata.partition_columns.end(), c.name) != metadata.partition_columns.end()) {
            auto given = file.partition_values.find(physical_name(metadata, c));
            value = given == file.partition_values.end() || !given->second ? "NULL" : sql::quote_literal(*given->second);
          } else {
            value = logical_value_sql(metadata, q(physical_name(metadata, c)), c.type);
          }
          columns += std::string("CAST(") + value + " AS " + duckdb_type_of(c.type) + ") AS " + q(c.name) + ", ";
        }
        append("SELECT " + columns + "_change_type, " + version + " FROM read_parquet(" +
               sql::quote_literal(readable_path(table, file.path, file.size)) + ")");
      }
      continue;
    }
    // Without: a file removed and added again is the rows its new deletion vector takes out;
    // any other added file's rows are inserted, any other removed file's rows deleted.
    std::vector<AddFile> inserted, deleted, readded, before;
    for (const auto& added : commit.adds) {
      if (!added.data_change) continue;
      auto removed = std::find_if(commit.removes.begin(), commit.removes.end(),
                                  [&](const RemoveFile& r) { return r.path == added.path && r.data_change; });
      if (removed == commit.removes.end()) {
        inserted.push_back(added);
        continue;
      }
      readded.push_back(added);
      AddFile old = added;
      old.deletion_vector = removed->deletion_vector;
      before.push_back(old);
    }
    for (const auto& removed : commit.removes) {
      if (!removed.data_change) continue;
      if (std::any_of(readded.begin(), readded.end(), [&](const AddFile& a) { return a.path == removed.path; })) continue;
      AddFile old;
      old.path = removed.path;
      old.size = removed.size.value_or(0);
      if (removed.partition_values) old.partition_values = *removed.partition_values;
      old.deletion_vector = removed.deletion_vector;
      deleted.push_back(old);
    }
    if (!inserted.empty()) append("SELECT *, 'insert' AS _change_type, " + version + " FROM (" + rows_of(inserted) + ")");
    if (!deleted.empty()) append("SELECT *, 'delete' AS _change_type, " + version + " FROM (" + rows_of(deleted) + ")");
    if (!readded.empty())
      append("SELECT *, 'delete' AS _change_type, " + version + " FROM ((" + rows_of(before) + ") EXCEPT ALL (" + rows_of(readded) + "))");
  }
  if (sql.empty()) {
    std::string none;
    for (const auto& c : metadata.schema) none += "NULL::" + duckdb_type_of(c.type) + " AS " + q(c.name) + ", ";
    sql = "SELECT " + none + "NULL::VARCHAR AS _change_type, NULL::BIGINT AS _commit_version, NULL::TIMESTAMPTZ AS _commit_timestamp WHERE false";
  }
  return sql;
}

}  // namespace lakestream::delta
