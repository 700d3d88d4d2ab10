// Column mapping (name mode, as Spark wrote delta-kernel-rs's golden tables): the files, the
// partition values and the statistics name columns by physical names ("col-<uuid>"), the schema by
// logical ones. Reading resolves one to the other at every depth (golden_tables_test.cc compares
// whole tables with Spark's rows); here, what else reads those names: the time-range pruning of
// check and recount, by a partition column and by statistics, must keep exactly the files that can
// hold rows in the range, and a rename (a new logical name over the same physical one) reads the
// same data under the new name.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/column_mapping.h"
#include "table/file_pruning.h"
#include "table/log_files.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

std::string golden(const std::string& name) { return testing::test_data_dir() + "/golden/" + name + "/delta"; }

int64_t micros(sql::Connection& con, const std::string& timestamp) {
  return con.scalar_int("SELECT epoch_us(TIMESTAMP '" + timestamp + "')");
}

// For each range: the rows of the pruned snapshot in the range equal those of the whole table in
// it, and pruning dropped files where it could.
void expect_pruning_keeps_the_rows(const std::string& table, const std::string& column) {
  sql::Database db;
  sql::Connection con(db);
  Snapshot snapshot = load_snapshot(table);
  ASSERT_TRUE(uses_column_mapping(snapshot.metadata));
  std::string quoted = sql::quote_ident(column);
  bool pruned_some = false;
  for (auto [since, until] : std::vector<std::pair<std::string, std::string>>{
           {"2013-07-05 00:00:00", "2013-07-06 00:00:00"}, {"2021-11-18 00:00:00", "2021-11-19 00:00:00"},
           {"2000-01-01 00:00:00", "2001-01-01 00:00:00"}}) {
    TimeRange range{micros(con, since), micros(con, until)};
    Snapshot pruned = prune_files(con, snapshot, column, range);
    pruned_some = pruned_some || pruned.files.size() < snapshot.files.size();
    std::string in_range = " WHERE " + range.contains_sql("CAST(" + quoted + " AS TIMESTAMPTZ)");
    std::string all = "SELECT * FROM (" + scan_sql(snapshot) + ")" + in_range;
    std::string kept = "SELECT * FROM (" + scan_sql(pruned) + ")" + in_range;
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + all + " EXCEPT ALL " + kept + ")"), 0) << since << " " << column;
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + kept + " EXCEPT ALL " + all + ")"), 0) << since << " " << column;
  }
  EXPECT_TRUE(pruned_some) << "no range dropped a file by " << column;
}

TEST(ColumnMapping, PruningByAMappedPartitionColumnKeepsTheRowsInRange) {
  expect_pruning_keeps_the_rows(golden("data-reader-timestamp_ntz-name-mode"), "tsNtzPartition");
}

TEST(ColumnMapping, PruningByAMappedColumnsStatisticsKeepsTheRowsInRange) {
  expect_pruning_keeps_the_rows(golden("data-reader-timestamp_ntz-name-mode"), "tsNtz");
}

// A RENAME COLUMN only changes the logical name in the schema: the files stay as they are.
TEST(ColumnMapping, ARenamedColumnReadsItsDataUnderTheNewName) {
  testing::TempDir dir;
  std::string table = dir / "table";
  fs::copy(golden("table-with-columnmapping-mode-name"), table, fs::copy_options::recursive);
  sql::Database db;
  sql::Connection con(db);
  Snapshot before = load_snapshot(table);
  std::string old_rows = "SELECT \"LongType\", \"StringType\" FROM (" + scan_sql(before) + ")";
  int64_t rows = con.scalar_int("SELECT count(*) FROM (" + old_rows + ")");
  ASSERT_GT(rows, 0);

  // Version 1, as Spark's ALTER TABLE ... RENAME COLUMN LongType TO renamed writes it: the same
  // metaData with the field's name changed, its physical name and id kept.
  std::string text = read_file(commit_file_path(table, 0));
  size_t at = text.find("{\"metaData\"");
  nlohmann::json metadata = nlohmann::json::parse(text.substr(at, text.find('\n', at) - at));
  nlohmann::json schema = nlohmann::json::parse(metadata["metaData"]["schemaString"].get<std::string>());
  for (auto& field : schema["fields"])
    if (field["name"] == "LongType") field["name"] = "renamed";
  metadata["metaData"]["schemaString"] = schema.dump();
  testing::write_text(commit_file_path(table, 1), metadata.dump() + "\n");

  Snapshot after = load_snapshot(table);
  std::string new_rows = "SELECT renamed AS \"LongType\", \"StringType\" FROM (" + scan_sql(after) + ")";
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + new_rows + ")"), rows);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + old_rows + " EXCEPT ALL " + new_rows + ")"), 0);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + new_rows + " EXCEPT ALL " + old_rows + ")"), 0);
  EXPECT_GT(con.scalar_int("SELECT count(renamed) FROM (" + scan_sql(after) + ")"), 0) << "the data, not NULLs";
}

// Id mode: a reader must find each column by its Parquet field id, whatever the file calls it. A
// file written with other column names (as a conversion from Iceberg, or another engine, leaves
// them) but the schema's field ids reads under the schema's names; a column no file has (its id
// absent) comes out as NULL; and a column whose id another column's name would match by name is
// not picked by name.
TEST(ColumnMapping, IdModeFindsColumnsByFieldIdNotByName) {
  testing::TempDir dir;
  std::string table = dir / "table";
  sql::Database db;
  sql::Connection con(db);
  make_dirs(table + "/_delta_log");
  auto field = [](const std::string& name, const std::string& type, int id, const std::string& physical) {
    return nlohmann::json{{"name", name}, {"type", type}, {"nullable", true},
                          {"metadata", {{"delta.columnMapping.id", id}, {"delta.columnMapping.physicalName", physical}}}};
  };
  nlohmann::json schema = {{"type", "struct"},
                           {"fields", {field("order_id", "long", 1, "col-a"), field("amount", "double", 2, "col-b"),
                                       field("added_later", "string", 3, "col-c")}}};
  // The file: ids 1 and 2 under names that are neither logical nor physical, and a column named
  // like physical col-c with id 9, which must not be taken for column 3.
  std::string file = "part-00000-converted.parquet";
  con.exec("COPY (SELECT i::BIGINT AS \"x_id\", i * 1.5 AS \"x_amount\", 'wrong' AS \"col-c\" FROM range(1, 4) t(i)) TO " +
           sql::quote_literal(table + "/" + file) + " (FORMAT parquet, FIELD_IDS {x_id: 1, x_amount: 2, \"col-c\": 9})");
  nlohmann::json meta = {{"id", "t"}, {"format", {{"provider", "parquet"}, {"options", nlohmann::json::object()}}},
                         {"schemaString", schema.dump()}, {"partitionColumns", nlohmann::json::array()},
                         {"configuration", {{"delta.columnMapping.mode", "id"}, {"delta.columnMapping.maxColumnId", "3"}}},
                         {"createdTime", 1}};
  nlohmann::json add = {{"path", file}, {"partitionValues", nlohmann::json::object()},
                        {"size", static_cast<int64_t>(fs::file_size(table + "/" + file))}, {"modificationTime", 1},
                        {"dataChange", true}};
  testing::write_text(commit_file_path(table, 0),
                      nlohmann::json{{"protocol", {{"minReaderVersion", 2}, {"minWriterVersion", 5}}}}.dump() + "\n" +
                          nlohmann::json{{"metaData", meta}}.dump() + "\n" + nlohmann::json{{"add", add}}.dump() + "\n");
  Snapshot snapshot = load_snapshot(table);
  sql::Rows rows = con.query("SELECT order_id, amount, added_later FROM (" + scan_sql(snapshot) + ") ORDER BY order_id");
  ASSERT_EQ(rows.rows.size(), 3u);
  for (int i = 0; i < 3; i++) {
    EXPECT_EQ(*rows.rows[i][0], std::to_string(i + 1));
    EXPECT_EQ(std::stod(*rows.rows[i][1]), (i + 1) * 1.5);
    EXPECT_FALSE(rows.rows[i][2].has_value()) << "column 3 is in no file: NULL, not col-c's 'wrong'";
  }
}

}  // namespace
}  // namespace lakestream::delta
