// A batch into a partitioned table, one file per partition value, so a batch never writes more
// than one file to a partition. A batch of one partition (a stream's batch nearly always falls in
// one day) is written straight from the batch's query: to the partition of the writer's last batch
// when it falls there whole, else after a pass that counts its rows per partition, computing only
// the partition columns; the rows of a batch of several are kept once in a temporary table, their
// partition values computed once, and written from there.
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

// SQL that is true (never null: its negation is the other partitions) for the rows of `alias`
// whose partition texts are `values`. Dates, integers and strings compare as themselves (no text
// made for each row); other types by their text.
std::string in_partition(const std::vector<Column>& columns, const std::vector<std::string>& partition_columns,
                         const std::string& alias, const PartitionValues& values, const std::string& table_path) {
  std::string where;
  for (const auto& name : partition_columns) {
    const Column& column = column_named(columns, name, table_path);
    std::string column_sql = alias + "." + sql::quote_ident(column.name);
    std::string text = "(" + partition_text_sql(column_sql, column.type) + ")";
    const auto& value = values.at(name);
    std::string type = delta_type_name(column.type);
    bool as_itself = type == "date" || type == "long" || type == "integer" || type == "short" || type == "byte" ||
                     type == "string";
    where += std::string(where.empty() ? "" : " AND ");
    if (!value) where += text + " IS NULL";  // a null or, for a string, ''
    else if (as_itself) where += column_sql + " IS NOT DISTINCT FROM CAST(" + sql::quote_literal(*value) + " AS " +
                                 duckdb_type_of(column.type) + ")";
    else where += text + " IS NOT DISTINCT FROM " + sql::quote_literal(*value);
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
// one file per distinct value.
std::vector<AddFile> write_through_temporary_table(sql::Connection& con, const Table& into,
                                                   const Metadata& table, const std::string& select_sql, const std::vector<Column>& columns,
                                                   const std::vector<std::string>& partition_columns) {
  std::string texts;
  std::vector<std::string> text_sql = partition_texts(columns, partition_columns, "q", into.path());
  for (size_t i = 0; i < partition_columns.size(); i++) texts += ", " + text_sql[i] + " AS " + value_column(i);
  con.exec(std::string("CREATE OR REPLACE TEMP TABLE ") + kBatchRows + " AS SELECT q.*" + texts + " FROM (" +
           select_sql + ") AS q");

  std::string value_list;
  for (size_t i = 0; i < partition_columns.size(); i++) value_list += (i ? ", " : "") + value_column(i);
  sql::Rows partitions = con.query("SELECT DISTINCT " + value_list + " FROM " + kBatchRows + " ORDER BY ALL");
  std::vector<AddFile> files;
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
      AddFile file = write_data_file(con, into, table, std::string("SELECT * FROM ") + kBatchRows + " WHERE " + where,
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

}  // namespace

std::vector<AddFile> write_partitioned_files(sql::Connection& con, const Table& into,
                                             const Metadata& table, const std::string& select_sql, const std::vector<Column>& columns,
                                             const std::vector<std::string>& partition_columns, LastPartition* last,
                                             int64_t rows) {
  if (partition_columns.empty()) {
    AddFile file = write_data_file(con, into, table, select_sql, columns);
    if (file.path.empty()) return {};
    return {file};
  }
  // The rows of one partition, written straight from the batch's query. The file holds the rows
  // that had the partition's values when it was written; as many as the batch has, it holds them
  // all. Else it is dropped before it is published: the batch falls in other partitions too, or
  // a partition expression changed between two runs of the query (now(), random()).
  auto write_one_partition = [&](const PartitionValues& values, int64_t of_rows) {
    return write_data_file(con, into, table,
                           "SELECT * FROM (" + select_sql + ") AS q WHERE " +
                               in_partition(columns, partition_columns, "q", values, into.path()),
                           columns, values, of_rows);
  };
  auto same_columns = [&](const PartitionValues& values) {
    if (values.size() != partition_columns.size()) return false;
    for (const auto& name : partition_columns)
      if (!values.count(name)) return false;
    return true;
  };
  if (last && rows > 0 && last->values && same_columns(*last->values)) {
    AddFile file = write_one_partition(*last->values, rows);
    if (!file.path.empty()) return {file};
  }
  if (last) last->values.reset();
  std::map<PartitionValues, int64_t> counts = rows_per_partition(con, select_sql, columns, partition_columns, into.path());
  if (counts.empty()) return {};
  if (counts.size() == 1) {
    const auto& [values, of_rows] = *counts.begin();
    AddFile file = write_one_partition(values, of_rows);
    if (!file.path.empty()) {
      if (last) last->values = values;
      return {file};
    }
  }
  return write_through_temporary_table(con, into, table, select_sql, columns, partition_columns);
}

}  // namespace lakestream::delta
