// The read side of the table as SQL: the snapshot's live files through DuckDB's read_parquet,
// with partition values (kept in the log, not in the files) added back: as constants of one
// read_parquet per partition (so that DuckDB drops the partitions a filter excludes without
// opening their files), or, for very many partitions or with file versions, joined on by file name.
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "table/column_mapping.h"
#include "table/deletion_vector.h"
#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/table_files.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

constexpr const char* kFileColumn = "__lakestream_file";
constexpr const char* kVersionColumn = "_file_version";
constexpr const char* kRowColumn = "__lakestream_row";
constexpr const char* kDuckdbRowNumber = "file_row_number";  // read_parquet's name for a row's index in its file
// Past this many partitions one UNION ALL branch each costs more to plan than pruning saves.
constexpr size_t kMaxPartitionBranches = 256;

using PartitionKey = std::vector<std::optional<std::string>>;

PartitionKey partition_key(const AddFile& file, const std::vector<std::string>& partition_columns) {
  PartitionKey key;
  for (const auto& name : partition_columns) {
    auto it = file.partition_values.find(name);
    key.push_back(it == file.partition_values.end() ? std::nullopt : it->second);
  }
  return key;
}

// The snapshot's files as SQL. With `with_row_position` each row also carries its file (as
// kFileColumn) and its index in the file (kRowColumn), for deletion vectors to name it.
std::string files_scan_sql(const Snapshot& snapshot, bool with_file_version, bool with_row_position) {
  const auto& schema = snapshot.metadata.schema;
  std::set<std::string> partition_columns(snapshot.metadata.partition_columns.begin(),
                                          snapshot.metadata.partition_columns.end());

  if (snapshot.files.empty()) {
    std::string columns;
    for (const auto& column : schema)
      columns += (columns.empty() ? "" : ", ") + std::string("CAST(NULL AS ") + duckdb_type_of(column.type) + ") AS " +
                 sql::quote_ident(column.name);
    if (with_file_version) columns += std::string(columns.empty() ? "" : ", ") + "CAST(NULL AS BIGINT) AS " + kVersionColumn;
    return "SELECT " + columns + " WHERE false";
  }

  const bool join_per_file = with_file_version || with_row_position || !partition_columns.empty();
  // For a table on an object store, the files are read from the local cache (fetched here).
  const Table& table = snapshot.table;
  std::string file_list;
  for (const auto& file : snapshot.files)
    file_list += (file_list.empty() ? "" : ", ") + sql::quote_literal(readable_path(table, file.path, file.size));

  // A typed, empty relation UNION ALL BY NAME the files: a column that no file holds yet (added
  // by a schema change) comes out as NULL of its type instead of failing the query.
  // Under column mapping the files name columns (and nested fields) by their physical names.
  const Metadata& metadata = snapshot.metadata;
  std::string typed_empty;
  for (const auto& column : schema) {
    if (partition_columns.count(column.name)) continue;
    typed_empty += (typed_empty.empty() ? "" : ", ") + std::string("CAST(NULL AS ") +
                   duckdb_type_of(physical_type(metadata, column.type)) + ") AS " +
                   sql::quote_ident(physical_name(metadata, column));
  }
  if (join_per_file) typed_empty += std::string(typed_empty.empty() ? "" : ", ") + "CAST(NULL AS VARCHAR) AS " + kFileColumn;
  if (with_row_position) typed_empty += std::string(", CAST(NULL AS BIGINT) AS ") + kDuckdbRowNumber;
  // In id mode DuckDB picks each column by its field id (the `schema` option, which stands in
  // for union_by_name: a column a file lacks comes out as NULL).
  std::string options = maps_by_field_id(metadata)
                            ? ", hive_partitioning = false, schema = " + parquet_schema_by_field_id(metadata, partition_columns)
                            : ", union_by_name = true, hive_partitioning = false";
  std::string data = "(SELECT " + typed_empty + " WHERE false UNION ALL BY NAME SELECT * FROM read_parquet([" +
                     file_list + "]" + options +
                     (join_per_file ? std::string(", filename = '") + kFileColumn + "'" : "") +
                     (with_row_position ? ", file_row_number = true" : "") + ")) AS d";

  std::string select;
  for (const auto& column : schema) {
    std::string name = sql::quote_ident(column.name);
    std::string stored = logical_value_sql(metadata, "d." + sql::quote_ident(physical_name(metadata, column)), column.type);
    select += (select.empty() ? "" : ", ") +
              (partition_columns.count(column.name) ? "p." + name
                                                    : "CAST(" + stored + " AS " + duckdb_type_of(column.type) + ") AS " + name);
  }
  if (with_file_version) select += std::string(select.empty() ? "" : ", ") + "p." + kVersionColumn;
  if (with_row_position)
    select += std::string(select.empty() ? "" : ", ") + "d." + kFileColumn + ", d." + kDuckdbRowNumber + " AS " + kRowColumn;
  // Without partition values or file versions to add, each row's file name comes from the read
  // itself: joining every row with the list of files by name cost a merge at 50,000 events/s
  // three times the join it served.
  if (!with_file_version && partition_columns.empty()) return "SELECT " + select + " FROM " + data;

  std::map<PartitionKey, std::vector<const AddFile*>> by_partition;
  for (const auto& file : snapshot.files)
    by_partition[partition_key(file, snapshot.metadata.partition_columns)].push_back(&file);
  if (!with_file_version && !with_row_position && by_partition.size() <= kMaxPartitionBranches) {
    std::string branches;
    for (const auto& [key, files] : by_partition) {
      Snapshot partition = snapshot;
      partition.metadata.partition_columns.clear();
      partition.metadata.schema.clear();
      for (const auto& column : schema)
        if (!partition_columns.count(column.name)) partition.metadata.schema.push_back(column);
      partition.files.clear();
      for (const AddFile* file : files) partition.files.push_back(*file);
      std::string constants;
      for (const auto& column : schema) {
        std::string name = sql::quote_ident(column.name);
        if (!partition_columns.count(column.name)) {
          constants += (constants.empty() ? "" : ", ") + std::string("f.") + name;
          continue;
        }
        size_t i = 0;
        while (snapshot.metadata.partition_columns[i] != column.name) i++;
        constants += (constants.empty() ? "" : ", ") + partition_value_sql(key[i], column.type) + " AS " + name;
      }
      branches += (branches.empty() ? "" : " UNION ALL ") +
                  ("SELECT " + constants + " FROM (" + files_scan_sql(partition, false, false) + ") AS f");
    }
    return branches;
  }

  // One VALUES row per file: its path, its typed partition values, the version that added it.
  std::string values;
  for (const auto& file : snapshot.files) {
    std::string row = sql::quote_literal(readable_path(table, file.path, file.size));
    for (const auto& column : schema) {
      if (!partition_columns.count(column.name)) continue;
      auto it = file.partition_values.find(column.name);
      std::optional<std::string> value = it == file.partition_values.end() ? std::nullopt : it->second;
      row += ", " + partition_value_sql(value, column.type);
    }
    if (with_file_version) row += ", CAST(" + std::to_string(file.version) + " AS BIGINT)";
    values += (values.empty() ? "(" : ", (") + row + ")";
  }
  std::string value_names = kFileColumn;
  for (const auto& column : schema)
    if (partition_columns.count(column.name)) value_names += ", " + sql::quote_ident(column.name);
  if (with_file_version) value_names += std::string(", ") + kVersionColumn;

  return "SELECT " + select + " FROM " + data + " JOIN (VALUES " + values + ") AS p(" + value_names + ") ON d." +
         kFileColumn + " = p." + kFileColumn;
}

// The rows the files' deletion vectors delete, as (kFileColumn, kRowColumn). Each vector's rows
// go in as one string, split by DuckDB: a list of many constants costs far more to parse.
std::string deleted_rows_sql(const Snapshot& snapshot, const std::vector<AddFile>& files) {
  const Table& table = snapshot.table;
  std::string relation;
  for (const auto& file : files) {
    std::string rows;
    for (uint64_t row : deleted_rows(snapshot.table, *file.deletion_vector))
      rows += (rows.empty() ? "" : ",") + std::to_string(row);
    if (rows.empty()) continue;
    relation += std::string(relation.empty() ? "" : " UNION ALL ") + "SELECT " +
                sql::quote_literal(readable_path(table, file.path, file.size)) + " AS " + kFileColumn +
                ", unnest(string_split(" + sql::quote_literal(rows) + ", ',')::BIGINT[]) AS " + kRowColumn;
  }
  if (relation.empty())
    relation = std::string("SELECT CAST(NULL AS VARCHAR) AS ") + kFileColumn + ", CAST(NULL AS BIGINT) AS " + kRowColumn +
               " WHERE false";
  return relation;
}

// The snapshot's rows, partition values keyed by column name: the files with deletion vectors
// anti-joined on their file and row index with the vectors' rows.
std::string scan_sql_by_name(const Snapshot& snapshot, bool with_file_version, bool with_positions) {
  Snapshot plain = snapshot, masked = snapshot;
  plain.files.clear();
  masked.files.clear();
  for (const auto& file : snapshot.files) (file.deletion_vector ? masked : plain).files.push_back(file);
  if (masked.files.empty()) return files_scan_sql(snapshot, with_file_version, with_positions);
  std::string columns;
  for (const auto& column : snapshot.metadata.schema) columns += (columns.empty() ? "" : ", ") + sql::quote_ident(column.name);
  if (with_file_version) columns += std::string(columns.empty() ? "" : ", ") + kVersionColumn;
  if (with_positions) columns += std::string(columns.empty() ? "" : ", ") + "s." + kFileColumn + ", s." + kRowColumn;
  std::string live = "SELECT " + columns + " FROM (" + files_scan_sql(masked, with_file_version, true) +
                     ") AS s ANTI JOIN (" + deleted_rows_sql(snapshot, masked.files) + ") AS x ON s." + kFileColumn +
                     " = x." + kFileColumn + " AND s." + kRowColumn + " = x." + kRowColumn;
  if (plain.files.empty()) return live;
  return files_scan_sql(plain, with_file_version, with_positions) + " UNION ALL " + live;
}

// The snapshot with its partition values keyed by column name (under column mapping the log
// keys them by physical name).
Snapshot with_partition_values_by_name(const Snapshot& snapshot) {
  if (!uses_column_mapping(snapshot.metadata) || snapshot.metadata.partition_columns.empty()) return snapshot;
  Snapshot logical = snapshot;
  for (auto& file : logical.files) file.partition_values = partition_values_by_name(snapshot.metadata, file.partition_values);
  return logical;
}

}  // namespace

std::string scan_sql(const Snapshot& snapshot, bool with_file_version) {
  return scan_sql_by_name(with_partition_values_by_name(snapshot), with_file_version, false);
}

std::string scan_sql_with_positions(const Snapshot& snapshot) {
  return scan_sql_by_name(with_partition_values_by_name(snapshot), false, true);
}

std::string every_row_with_positions_sql(const Snapshot& snapshot) {
  return files_scan_sql(with_partition_values_by_name(snapshot), false, true);
}

std::string deleted_positions_sql(const Snapshot& snapshot) {
  std::vector<AddFile> masked;
  for (const auto& file : snapshot.files)
    if (file.deletion_vector) masked.push_back(file);
  return deleted_rows_sql(snapshot, masked);
}

}  // namespace lakestream::delta
