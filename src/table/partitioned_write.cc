// A batch into a partitioned table: the rows are kept once in a temporary table, their distinct
// partition values read back as the strings Delta logs, then one file is written per value, so a
// batch never writes more than one file to a partition.
#include <map>

#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

constexpr const char* kBatchRows = "__lakestream_partitioned_rows";

const Column& column_named(const std::vector<Column>& columns, const std::string& name, const std::string& table_path) {
  const Column* column = find_column(columns, name);
  if (!column) throw Error("cannot write to " + table_path + ": its partition column " + name + " is not one of its columns");
  return *column;
}

std::string value_column(size_t i) { return "__lakestream_pv" + std::to_string(i); }

}  // namespace

std::vector<AddFile> write_partitioned_files(sql::Connection& con, const std::string& table_path,
                                             const std::string& select_sql, const std::vector<Column>& columns,
                                             const std::vector<std::string>& partition_columns) {
  if (partition_columns.empty()) {
    AddFile file = write_data_file(con, table_path, select_sql, columns);
    if (file.path.empty()) return {};
    return {file};
  }
  std::string texts;
  for (size_t i = 0; i < partition_columns.size(); i++) {
    const Column& column = column_named(columns, partition_columns[i], table_path);
    texts += ", " + partition_text_sql("q." + sql::quote_ident(column.name), column.type) + " AS " + value_column(i);
  }
  con.exec(std::string("CREATE OR REPLACE TEMP TABLE ") + kBatchRows + " AS SELECT q.*" + texts + " FROM (" +
           select_sql + ") AS q");

  std::string value_list;
  for (size_t i = 0; i < partition_columns.size(); i++) value_list += (i ? ", " : "") + value_column(i);
  sql::Rows partitions = con.query("SELECT DISTINCT " + value_list + " FROM " + kBatchRows + " ORDER BY ALL");

  std::vector<AddFile> files;
  try {
    for (size_t r = 0; r < partitions.size(); r++) {
      std::map<std::string, std::optional<std::string>> values;
      std::string where;
      for (size_t i = 0; i < partition_columns.size(); i++) {
        const auto& value = partitions.rows[r][i];
        values[partition_columns[i]] = value;
        where += std::string(i ? " AND " : "") + value_column(i) +
                 (value ? " = " + sql::quote_literal(*value) : std::string(" IS NULL"));
      }
      AddFile file = write_data_file(con, table_path, std::string("SELECT * FROM ") + kBatchRows + " WHERE " + where,
                                     columns, values);
      if (!file.path.empty()) files.push_back(std::move(file));
    }
  } catch (...) {
    con.exec(std::string("DROP TABLE IF EXISTS ") + kBatchRows);
    throw;
  }
  con.exec(std::string("DROP TABLE IF EXISTS ") + kBatchRows);
  return files;
}

}  // namespace lakestream::delta
