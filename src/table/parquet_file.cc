// Writing one data file: DuckDB runs the caller's query and writes its rows as zstd Parquet with
// the table's column types, then the file's stats are read back from it, so they describe
// exactly what was written.
#include "table/parquet_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "table/file_stats.h"
#include "table/path_encoding.h"
#include "table/table_files.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

AddFile write_data_file(sql::Connection& con, const std::string& table_path, const std::string& select_sql,
                        const std::vector<Column>& columns,
                        const std::map<std::string, std::optional<std::string>>& partition_values,
                        int64_t expected_rows) {
  CpuScope cpu_scope("write_data_file");
  std::set<std::string> known;
  for (const auto& column : columns) known.insert(column.name);
  for (const auto& [name, value] : partition_values)
    if (!known.count(name))
      throw Error("cannot write a data file to " + table_path + " for partition column " + name +
                  ": the table has no such column");

  // Hive-style folders in schema order; partition columns stay out of the file, as Delta requires.
  std::string folder;
  std::vector<Column> file_columns;
  for (const auto& column : columns) {
    auto it = partition_values.find(column.name);
    if (it == partition_values.end()) {
      file_columns.push_back(column);
    } else {
      folder += hive_escape_path_name(column.name) + "=" + hive_escape_partition_value(it->second) + "/";
    }
  }
  if (file_columns.empty())
    throw Error("cannot write a data file to " + table_path + ": every column is a partition column");

  std::string relative = folder + "part-00000-" + new_uuid() + "-c000.zstd.parquet";
  std::string table = normal_table_path(table_path);
  std::string path = staging_path(table, relative);

  std::string projection;
  for (const auto& column : file_columns)
    projection += (projection.empty() ? "" : ", ") + std::string("CAST(q.") + sql::quote_ident(column.name) + " AS " +
                  duckdb_type_of(column.type) + ") AS " + sql::quote_ident(column.name);
  int64_t rows = 0;
  try {
    rows = con.scalar_int("COPY (SELECT " + projection + " FROM (" + select_sql + ") AS q) TO " +
                          sql::quote_literal(path) + " (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, DICTIONARY_SIZE_LIMIT 4096)");
  } catch (const Error& e) {
    discard_staged_file(table, path);
    throw Error("cannot write a data file to table " + table + ": " + e.what());
  }
  if (rows == 0 || (expected_rows >= 0 && rows != expected_rows)) {
    discard_staged_file(table, path);
    return AddFile{};
  }

  AddFile file;
  file.path = relative;
  file.partition_values = partition_values;
  file.stats = compute_file_stats(con, path, file_columns);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) throw Error("cannot stat the data file just written, " + path + ": " + std::strerror(errno));
  file.size = st.st_size;
  file.modification_time = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
  file.data_change = true;
  publish_staged_file(table, relative, path);
  return file;
}

}  // namespace lakestream::delta
