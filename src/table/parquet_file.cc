// Writing one data file: DuckDB runs the caller's query and writes its rows as zstd Parquet with
// the table's column types (under the physical names and field ids of column mapping); the file's
// stats come from what DuckDB answered as it wrote it (RETURN_STATS), so they describe exactly
// what was written.
#include "table/parquet_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "table/column_mapping.h"
#include "table/file_stats.h"
#include "table/schema_columns.h"
#include "table/path_encoding.h"
#include "table/table_files.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

AddFile write_data_file(sql::Connection& con, const std::string& table_path, const Metadata& table_metadata,
                        const std::string& select_sql, const std::vector<Column>& columns,
                        const std::map<std::string, std::optional<std::string>>& partition_values,
                        int64_t expected_rows) {
  CpuScope cpu_scope("write_data_file");
  std::set<std::string> known;
  for (const auto& column : columns) known.insert(column.name);
  for (const auto& [name, value] : partition_values)
    if (!known.count(name))
      throw Error("cannot write a data file to " + table_path + " for partition column " + name +
                  ": the table has no such column");

  // Each column as the table holds it: under column mapping its physical name and field ids come
  // from the table's schema.
  const bool mapped = uses_column_mapping(table_metadata);
  std::vector<Column> table_columns;
  for (const auto& column : columns) {
    const Column* in_table = mapped ? find_column(table_metadata.schema, column.name) : &column;
    if (!in_table)
      throw Error("cannot write a data file to " + table_path + ": column " + column.name +
                  " is not in the table's schema");
    table_columns.push_back(*in_table);
  }

  // Hive-style folders in schema order; partition columns stay out of the file, as Delta requires.
  std::string folder;
  std::vector<Column> file_columns;
  for (const auto& column : table_columns) {
    auto it = partition_values.find(column.name);
    if (it == partition_values.end()) {
      file_columns.push_back(column);
    } else {
      folder += hive_escape_path_name(physical_name(table_metadata, column)) + "=" +
                hive_escape_partition_value(it->second) + "/";
    }
  }
  if (file_columns.empty())
    throw Error("cannot write a data file to " + table_path + ": every column is a partition column");

  std::string relative = folder + "part-00000-" + new_uuid() + "-c000.zstd.parquet";
  std::string table = normal_table_path(table_path);
  std::string path = staging_path(table, relative);

  std::string projection;
  std::vector<Column> stored_columns;  // as the file names and types them
  for (const auto& column : file_columns) {
    Column stored{physical_name(table_metadata, column), physical_type(table_metadata, column.type), column.nullable};
    projection += (projection.empty() ? "" : ", ") + std::string("CAST(") +
                  physical_value_sql(table_metadata, "q." + sql::quote_ident(column.name), column.type) + " AS " +
                  duckdb_type_of(stored.type) + ") AS " + sql::quote_ident(stored.name);
    stored_columns.push_back(std::move(stored));
  }
  std::string field_ids = field_ids_option(table_metadata, file_columns);
  sql::CopyStats written;
  try {
    written = sql::copy_returning_stats(
        con, "COPY (SELECT " + projection + " FROM (" + select_sql + ") AS q) TO " + sql::quote_literal(path) +
                 " (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, DICTIONARY_SIZE_LIMIT 4096, RETURN_STATS" +
                 (field_ids.empty() ? "" : ", " + field_ids) + ")");
  } catch (const Error& e) {
    discard_staged_file(table, path);
    throw Error("cannot write a data file to table " + table + ": " + e.what());
  }
  const int64_t rows = written.rows;
  if (rows == 0 || (expected_rows >= 0 && rows != expected_rows)) {
    discard_staged_file(table, path);
    return AddFile{};
  }

  AddFile file;
  file.path = relative;
  file.partition_values = partition_values_by_physical_name(table_metadata, partition_values);
  file.stats = compute_file_stats(con, path, stored_columns, &written);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot stat the data file just written, " + path + ": " + std::strerror(errno));
  file.size = st.st_size;
  file.modification_time = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  file.data_change = true;
  publish_staged_file(table, relative, path);
  return file;
}

}  // namespace lakestream::delta
