// The read side of the table as SQL: the snapshot's live files through DuckDB's read_parquet,
// with partition values (kept in the log, not in the files) joined back on by file name.
#include <map>
#include <set>

#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

constexpr const char* kFileColumn = "__lakestream_file";
constexpr const char* kVersionColumn = "_file_version";

}  // namespace

std::string scan_sql(const Snapshot& snapshot, bool with_file_version) {
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

  const bool join_per_file = with_file_version || !partition_columns.empty();
  std::string table = absolute_path(snapshot.table_path);
  std::string file_list;
  for (const auto& file : snapshot.files)
    file_list += (file_list.empty() ? "" : ", ") + sql::quote_literal(join_path(table, file.path));

  // A typed, empty relation UNION ALL BY NAME the files: a column that no file holds yet (added
  // by a schema change) comes out as NULL of its type instead of failing the query.
  std::string typed_empty;
  for (const auto& column : schema) {
    if (partition_columns.count(column.name)) continue;
    typed_empty += (typed_empty.empty() ? "" : ", ") + std::string("CAST(NULL AS ") + duckdb_type_of(column.type) +
                   ") AS " + sql::quote_ident(column.name);
  }
  if (join_per_file) typed_empty += std::string(typed_empty.empty() ? "" : ", ") + "CAST(NULL AS VARCHAR) AS " + kFileColumn;
  std::string data = "(SELECT " + typed_empty + " WHERE false UNION ALL BY NAME SELECT * FROM read_parquet([" +
                     file_list + "], union_by_name = true, hive_partitioning = false" +
                     (join_per_file ? std::string(", filename = '") + kFileColumn + "'" : "") + ")) AS d";

  std::string select;
  for (const auto& column : schema) {
    std::string name = sql::quote_ident(column.name);
    select += (select.empty() ? "" : ", ") +
              (partition_columns.count(column.name) ? "p." + name
                                                    : "CAST(d." + name + " AS " + duckdb_type_of(column.type) + ") AS " + name);
  }
  if (with_file_version) select += std::string(select.empty() ? "" : ", ") + "p." + kVersionColumn;
  if (!join_per_file) return "SELECT " + select + " FROM " + data;

  // One VALUES row per file: its path, its typed partition values, the version that added it.
  std::string values;
  for (const auto& file : snapshot.files) {
    std::string row = sql::quote_literal(join_path(table, file.path));
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

}  // namespace lakestream::delta
