// A batch into a partitioned table, one file per partition value, so a batch never writes more
// than one file to a partition. The batch's rows are counted by partition first (a pass that
// computes only the partition columns); the largest partition, nearly always nearly all of the
// batch (a day), is written straight from the batch's query; the rows of the others are kept
// once in a temporary table and written from there, one file per value.
#include <map>

#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

constexpr const char* kBatchRows = "__lakestream_partitioned_rows";

using PartitionValues = std::map<std::string, std::optional<std::string>>;

const Column& column_named(const std::vector<Column>& columns, const std::string& name, const std::string& table_path) {
  const Column* column = find_column(columns, name);
  if (!column) throw Error("cannot write to " + table_path + ": its partition column " + name + " is not one of its columns");
  return *column;
}

std::string value_column(size_t i) { return "__lakestream_pv" + std::to_string(i); }

// The partition columns' values as the strings Delta logs, as SQL over the relation `alias`.
std::vector<std::string> partition_texts(const std::vector<Column>& columns, const std::vector<std::string>& partition_columns,
                                         const std::string& alias, const std::string& table_path) {
  std::vector<std::string> texts;
  for (const auto& name : partition_columns) {
    const Column& column = column_named(columns, name, table_path);
    texts.push_back(partition_text_sql(alias + "." + sql::quote_ident(column.name), column.type));
  }
  return texts;
}

// SQL that is true for the rows whose partition texts are `values`.
std::string in_partition(const std::vector<std::string>& texts, const std::vector<std::string>& partition_columns,
                         const PartitionValues& values) {
  std::string where;
  for (size_t i = 0; i < texts.size(); i++) {
    const auto& value = values.at(partition_columns[i]);
    where += std::string(i ? " AND " : "") + "(" + texts[i] + ")" +
             (value ? " IS NOT DISTINCT FROM " + sql::quote_literal(*value) : std::string(" IS NULL"));
  }
  return where;
}

// How many rows of `select_sql` each partition gets. Grouped on the columns' own values (cheap),
// then merged by their texts, since two values may log as one ('' and NULL are both null).
std::map<PartitionValues, int64_t> rows_per_partition(sql::Connection& con, const std::string& select_sql,
                                                      const std::vector<Column>& columns,
                                                      const std::vector<std::string>& partition_columns,
                                                      const std::string& table_path) {
  std::string raw, texts;
  std::vector<std::string> text_sql = partition_texts(columns, partition_columns, "g", table_path);
  for (size_t i = 0; i < partition_columns.size(); i++) {
    raw += "q." + sql::quote_ident(partition_columns[i]) + " AS " + sql::quote_ident(partition_columns[i]) + ", ";
    texts += text_sql[i] + " AS " + value_column(i) + ", ";
  }
  sql::Rows rows = con.query("SELECT " + texts + "CAST(n AS VARCHAR) AS n FROM (SELECT " + raw + "count(*) AS n FROM (" +
                             select_sql + ") AS q GROUP BY ALL) AS g");
  std::map<PartitionValues, int64_t> counts;
  for (size_t r = 0; r < rows.size(); r++) {
    PartitionValues values;
    for (size_t i = 0; i < partition_columns.size(); i++) values[partition_columns[i]] = rows.rows[r][i];
    counts[values] += std::stoll(rows.text(r, "n"));
  }
  return counts;
}

// The rows of `select_sql` through a temporary table: their partition texts computed once, then
// one file per distinct value. Adds each file's rows to `written[its values]`.
void write_through_temporary_table(sql::Connection& con, const std::string& table_path, const std::string& select_sql,
                                   const std::vector<Column>& columns, const std::vector<std::string>& partition_columns,
                                   std::vector<AddFile>& files, std::map<PartitionValues, int64_t>& written) {
  std::string texts;
  std::vector<std::string> text_sql = partition_texts(columns, partition_columns, "q", table_path);
  for (size_t i = 0; i < partition_columns.size(); i++) texts += ", " + text_sql[i] + " AS " + value_column(i);
  con.exec(std::string("CREATE OR REPLACE TEMP TABLE ") + kBatchRows + " AS SELECT q.*" + texts + " FROM (" +
           select_sql + ") AS q");

  std::string value_list;
  for (size_t i = 0; i < partition_columns.size(); i++) value_list += (i ? ", " : "") + value_column(i);
  sql::Rows partitions = con.query("SELECT DISTINCT " + value_list + " FROM " + kBatchRows + " ORDER BY ALL");
  try {
    for (size_t r = 0; r < partitions.size(); r++) {
      PartitionValues values;
      std::string where;
      for (size_t i = 0; i < partition_columns.size(); i++) {
        const auto& value = partitions.rows[r][i];
        values[partition_columns[i]] = value;
        where += std::string(i ? " AND " : "") + value_column(i) +
                 (value ? " = " + sql::quote_literal(*value) : std::string(" IS NULL"));
      }
      int64_t rows = 0;
      AddFile file = write_data_file(con, table_path, std::string("SELECT * FROM ") + kBatchRows + " WHERE " + where,
                                     columns, values, &rows);
      written[values] += rows;
      if (!file.path.empty()) files.push_back(std::move(file));
    }
  } catch (...) {
    con.exec(std::string("DROP TABLE IF EXISTS ") + kBatchRows);
    throw;
  }
  con.exec(std::string("DROP TABLE IF EXISTS ") + kBatchRows);
}

}  // namespace

std::vector<AddFile> write_partitioned_files(sql::Connection& con, const std::string& table_path,
                                             const std::string& select_sql, const std::vector<Column>& columns,
                                             const std::vector<std::string>& partition_columns) {
  if (partition_columns.empty()) {
    AddFile file = write_data_file(con, table_path, select_sql, columns);
    if (file.path.empty()) return {};
    return {file};
  }
  std::map<PartitionValues, int64_t> expected = rows_per_partition(con, select_sql, columns, partition_columns, table_path);
  if (expected.empty()) return {};
  auto largest = expected.begin();
  for (auto it = expected.begin(); it != expected.end(); it++)
    if (it->second > largest->second) largest = it;

  // The largest partition straight from the batch's query: its rows are not copied.
  std::vector<std::string> texts = partition_texts(columns, partition_columns, "q", table_path);
  std::string in_largest = in_partition(texts, partition_columns, largest->first);
  std::map<PartitionValues, int64_t> written;
  std::vector<AddFile> files;
  AddFile file = write_data_file(con, table_path, "SELECT * FROM (" + select_sql + ") AS q WHERE " + in_largest, columns,
                                 largest->first, &written[largest->first]);
  if (!file.path.empty()) files.push_back(std::move(file));
  if (expected.size() > 1)
    write_through_temporary_table(con, table_path, "SELECT * FROM (" + select_sql + ") AS q WHERE NOT (" + in_largest + ")",
                                  columns, partition_columns, files, written);

  // Each row in exactly one file, under the values it was counted under: else a partition
  // column's expression gave another value on another pass over the same rows.
  if (written != expected) {
    std::string names;
    for (const auto& name : partition_columns) names += (names.empty() ? "" : ", ") + name;
    throw Error("cannot write a batch to " + table_path + ": its partition columns (" + names +
                ") gave other values each time the batch's rows were read, so its rows cannot be put in their "
                "partitions. Partition by columns of the events or expressions over them, not by now(), random() or "
                "other values that change between reads. Nothing was committed.");
  }
  return files;
}

}  // namespace lakestream::delta
