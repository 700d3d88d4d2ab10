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
#include <tuple>

#include "table/column_mapping.h"
#include "table/file_stats.h"
#include "table/iceberg_metadata.h"
#include "table/schema_columns.h"
#include "table/path_encoding.h"
#include "table/table_files.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

// What write_rows wrote: the path relative to the table, the staged file (published by the
// caller), and its row count and DuckDB's stats; no path when it wrote no file.
struct WrittenRows {
  std::string relative;
  std::string staged;
  std::vector<Column> stored_columns;
  std::vector<Column> stats_columns;  // the stored columns but the partition columns: the ones Delta has stats for
  sql::CopyStats copy;
};

// Writes the rows of `select_sql` as one Parquet file at `relative_folder` + the partition
// folders + a fresh name, staged: the columns the table holds (partition columns left out) in
// its physical shape, then `extra` (more SELECT items over q, the query's rows). Discards it
// and returns no path when it holds no rows, or another number than `expected_rows` (>= 0).
WrittenRows write_rows(sql::Connection& con, const Table& into, const Metadata& table_metadata,
                       const std::string& select_sql, const std::vector<Column>& columns,
                       const std::map<std::string, std::optional<std::string>>& partition_values,
                       const std::string& relative_folder, const std::string& name_prefix, const std::string& extra,
                       int64_t expected_rows) {
  std::set<std::string> known;
  for (const auto& column : columns) known.insert(column.name);
  for (const auto& [name, value] : partition_values)
    if (!known.count(name))
      throw Error("cannot write a data file to " + into.path() + " for partition column " + name +
                  ": the table has no such column");

  // Each column as the table holds it: under column mapping its physical name and field ids come
  // from the table's schema.
  const bool mapped = uses_column_mapping(table_metadata);
  std::vector<Column> table_columns;
  for (const auto& column : columns) {
    const Column* in_table = mapped ? find_column(table_metadata.schema, column.name) : &column;
    if (!in_table)
      throw Error("cannot write a data file to " + into.path() + ": column " + column.name +
                  " is not in the table's schema");
    table_columns.push_back(*in_table);
  }

  // Hive-style folders in schema order; partition columns stay out of the file, as Delta does,
  // except in a table with Iceberg metadata: Iceberg readers look for them in the files (Delta
  // readers take them from partitionValues all the same, as Delta's IcebergCompat features have it).
  const bool materialized = iceberg_enabled(table_metadata);
  std::string folder = relative_folder;
  std::vector<Column> file_columns;
  std::set<std::string> partition_names;
  for (const auto& column : table_columns) {
    auto it = partition_values.find(column.name);
    if (it == partition_values.end()) {
      file_columns.push_back(column);
    } else {
      folder += hive_escape_path_name(physical_name(table_metadata, column)) + "=" +
                hive_escape_partition_value(it->second) + "/";
      partition_names.insert(column.name);
      if (materialized) file_columns.push_back(column);
    }
  }
  if (file_columns.empty())
    throw Error("cannot write a data file to " + into.path() + ": every column is a partition column");

  WrittenRows written;
  written.relative = folder + name_prefix + "-00000-" + new_uuid() + "-c000.zstd.parquet";
  Table table = into.normal();
  std::string path = staging_path(table, written.relative);

  std::string projection;
  for (const auto& column : file_columns) {
    Column stored{physical_name(table_metadata, column), physical_type(table_metadata, column.type), column.nullable};
    projection += (projection.empty() ? "" : ", ") + std::string("CAST(") +
                  physical_value_sql(table_metadata, "q." + sql::quote_ident(column.name), column.type) + " AS " +
                  duckdb_type_of(stored.type) + ") AS " + sql::quote_ident(stored.name);
    if (!partition_names.count(column.name)) written.stats_columns.push_back(stored);
    written.stored_columns.push_back(std::move(stored));
  }
  std::string field_ids = field_ids_option(table_metadata, file_columns);
  try {
    written.copy = sql::copy_returning_stats(
        con, "COPY (SELECT " + projection + extra + " FROM (" + select_sql + ") AS q) TO " + sql::quote_literal(path) +
                 " (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, DICTIONARY_SIZE_LIMIT 4096, RETURN_STATS" +
                 (field_ids.empty() ? "" : ", " + field_ids) + ")");
  } catch (const Error& e) {
    discard_staged_file(table, path);
    throw Error("cannot write a data file to table " + table.path() + ": " + e.what());
  }
  const int64_t rows = written.copy.rows;
  if (rows == 0 || (expected_rows >= 0 && rows != expected_rows)) {
    discard_staged_file(table, path);
    return WrittenRows{};
  }
  written.staged = path;
  return written;
}

// The size of the file at `path`, and its modification time in ms.
std::pair<int64_t, int64_t> size_and_time(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot stat the data file just written, " + path + ": " + std::strerror(errno));
  return {st.st_size, static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000};
}

}  // namespace

AddFile write_data_file(sql::Connection& con, const Table& into, const Metadata& table_metadata,
                        const std::string& select_sql, const std::vector<Column>& columns,
                        const std::map<std::string, std::optional<std::string>>& partition_values,
                        int64_t expected_rows) {
  CpuScope cpu_scope("write_data_file");
  WrittenRows written =
      write_rows(con, into, table_metadata, select_sql, columns, partition_values, "", "part", "", expected_rows);
  if (written.relative.empty()) return AddFile{};
  AddFile file;
  file.path = written.relative;
  file.partition_values = partition_values_by_physical_name(table_metadata, partition_values);
  file.stats = compute_file_stats(con, written.staged, written.stats_columns, &written.copy);
  std::tie(file.size, file.modification_time) = size_and_time(written.staged);
  file.data_change = true;
  publish_staged_file(into.normal(), written.relative, written.staged);
  return file;
}

ChangeDataFile write_change_data_file(sql::Connection& con, const Table& into, const Metadata& table_metadata,
                                      const std::string& select_sql, const std::vector<Column>& columns) {
  CpuScope cpu_scope("write_change_data_file");
  WrittenRows written = write_rows(con, into, table_metadata, select_sql, columns, {}, "_change_data/", "cdc",
                                   ", q._change_type::VARCHAR AS _change_type", -1);
  if (written.relative.empty()) return ChangeDataFile{};
  ChangeDataFile file;
  file.path = written.relative;
  file.size = size_and_time(written.staged).first;
  publish_staged_file(into.normal(), written.relative, written.staged);
  return file;
}

}  // namespace lakestream::delta
