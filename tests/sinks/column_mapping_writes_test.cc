// Writing tables under column mapping (name and id mode), checked on the raw log and the Parquet
// files rather than through lakestream's reader alone: every field, nested ones too, gets a unique
// id and a physical name; the files hold the columns under their physical names with the ids as
// Parquet field ids; statistics and partition values are keyed by physical name; a new column
// gets the next id; a table is turned to name mode in place, never to id mode; and the tables
// Spark wrote with column mapping take appends and compactions. Each table then passes the
// interop check (the validator written from PROTOCOL.md and two independent Parquet readers).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "sinks/table_sink.h"
#include "support/error_of.h"
#include "support/other_readers.h"
#include "table/column_mapping.h"
#include "table/compaction.h"
#include "table/log_files.h"
#include "table/table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kId = "delta.columnMapping.id";
constexpr const char* kPhysical = "delta.columnMapping.physicalName";

// Columns of every shape: nested structs in a struct, in a list and in a map, and a partition.
std::vector<Column> shapes_schema() {
  json address = {{"type", "struct"},
                  {"fields", {{{"name", "city"}, {"type", "string"}, {"nullable", true}, {"metadata", json::object()}},
                              {{"name", "geo"}, {"type", {{"type", "struct"}, {"fields", {{{"name", "lat"}, {"type", "double"}, {"nullable", true}, {"metadata", json::object()}}}}}},
                               {"nullable", true}, {"metadata", json::object()}}}}};
  json line = {{"type", "struct"},
               {"fields", {{{"name", "sku"}, {"type", "string"}, {"nullable", true}, {"metadata", json::object()}},
                           {{"name", "qty"}, {"type", "integer"}, {"nullable", true}, {"metadata", json::object()}}}}};
  return {{"order_id", "long"},
          {"amount", "double"},
          {"address", address},
          {"lines", {{"type", "array"}, {"elementType", line}, {"containsNull", true}}},
          {"by_sku", {{"type", "map"}, {"keyType", "string"}, {"valueType", line}, {"valueContainsNull", true}}},
          {"dt", "date"}};
}

std::string shapes_rows(int from, int to) {
  return "SELECT i::BIGINT AS order_id, i * 1.5 AS amount, "
         "CASE WHEN i % 4 = 0 THEN NULL ELSE {'city': 'c' || i, 'geo': {'lat': i / 8.0}} END AS address, "
         "[{'sku': 's' || i, 'qty': i::INTEGER}, {'sku': NULL, 'qty': NULL}] AS lines, "
         "MAP {'s' || i: {'sku': 'm' || i, 'qty': (i * 2)::INTEGER}} AS by_sku, "
         "DATE '2026-10-01' + (i % 3)::INTEGER AS dt FROM range(" + std::to_string(from) + ", " + std::to_string(to) +
         ") t(i)";
}

// The newest metaData action, as the log holds it.
json raw_metadata(const std::string& table) {
  json found;
  for (int64_t v = 0; v <= latest_version(table); v++) {
    std::ifstream in(commit_file_path(table, v));
    for (std::string line; std::getline(in, line);)
      if (json action = json::parse(line); action.contains("metaData")) found = action["metaData"];
  }
  return found;
}

// Every field of the schema JSON (nested struct fields too), with its path.
void collect_fields(const json& type, const std::string& prefix, std::vector<std::pair<std::string, json>>& out) {
  if (!type.is_object()) return;
  std::string kind = type.value("type", "");
  if (kind == "struct") {
    for (const auto& field : type["fields"]) {
      out.emplace_back(prefix + field["name"].get<std::string>(), field);
      collect_fields(field["type"], prefix + field["name"].get<std::string>() + ".", out);
    }
  } else if (kind == "array") {
    collect_fields(type["elementType"], prefix, out);
  } else if (kind == "map") {
    collect_fields(type["keyType"], prefix, out);
    collect_fields(type["valueType"], prefix, out);
  }
}

std::vector<std::pair<std::string, json>> fields_of(const json& metadata) {
  std::vector<std::pair<std::string, json>> fields;
  collect_fields(json::parse(metadata["schemaString"].get<std::string>()), "", fields);
  return fields;
}

class ColumnMappingWrites : public fixtures::TableTest, public ::testing::WithParamInterface<std::string> {
 protected:
  // A commit of rows [from, to) through the sinks' begin_commit, as a stream makes it.
  int64_t write(const std::vector<Column>& columns, const std::string& rows_sql) {
    Snapshot snapshot = load_snapshot(table);
    Commit commit = begin_commit(snapshot, columns, {"dt"}, table, {{"delta.columnMapping.mode", GetParam()}});
    for (const auto& file : write_partitioned_files(con, table, commit.metadata_after(), rows_sql, columns, {"dt"}))
      commit.add(file);
    return commit.publish();
  }

  // The table's rows as lakestream reads them equal `expected_sql`'s, both ways.
  void expect_rows(const std::string& expected_sql, const std::string& columns) {
    std::string got = "SELECT " + columns + " FROM (" + scan_sql(load_snapshot(table)) + ")";
    std::string want = "SELECT " + columns + " FROM (" + expected_sql + ")";
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + want + ")"), con.scalar_int("SELECT count(*) FROM (" + got + ")"));
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + got + " EXCEPT ALL " + want + ")"), 0);
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + want + " EXCEPT ALL " + got + ")"), 0);
  }
};

TEST_P(ColumnMappingWrites, FilesStatsAndPartitionValuesUsePhysicalNamesAndFieldIds) {
  write(shapes_schema(), shapes_rows(1, 13));

  json metadata = raw_metadata(table);
  EXPECT_EQ(metadata["configuration"]["delta.columnMapping.mode"], GetParam());
  // Every field has its own id and a physical name that is not its name; maxColumnId is the top.
  std::set<int64_t> ids;
  std::map<std::string, json> by_path;
  for (const auto& [path, field] : fields_of(metadata)) {
    ASSERT_TRUE(field["metadata"].contains(kId) && field["metadata"].contains(kPhysical)) << path;
    EXPECT_TRUE(ids.insert(field["metadata"][kId].get<int64_t>()).second) << path << " shares its id";
    EXPECT_TRUE(field["metadata"][kPhysical].get<std::string>().starts_with("col-")) << path;
    by_path[path] = field;
  }
  EXPECT_EQ(ids.size(), 13u);  // 6 columns; city, geo, lat; sku, qty in the list; sku, qty in the map
  EXPECT_EQ(std::stoll(metadata["configuration"]["delta.columnMapping.maxColumnId"].get<std::string>()), *ids.rbegin());
  // The protocol names the feature for readers and writers.
  Snapshot snapshot = load_snapshot(table);
  EXPECT_EQ(snapshot.min_reader_version, 3);
  EXPECT_NE(std::find(snapshot.reader_features.begin(), snapshot.reader_features.end(), "columnMapping"),
            snapshot.reader_features.end());
  EXPECT_NE(std::find(snapshot.writer_features.begin(), snapshot.writer_features.end(), "columnMapping"),
            snapshot.writer_features.end());

  auto physical = [&](const std::string& path) { return by_path.at(path)["metadata"][kPhysical].get<std::string>(); };
  auto id = [&](const std::string& path) { return by_path.at(path)["metadata"][kId].get<int64_t>(); };
  ASSERT_EQ(snapshot.files.size(), 3u);  // one per dt
  for (const auto& file : snapshot.files) {
    // Partition values and stats by physical name.
    EXPECT_EQ(file.partition_values.size(), 1u);
    EXPECT_TRUE(file.partition_values.count(physical("dt"))) << file.path;
    EXPECT_TRUE(file.path.starts_with(physical("dt") + "=")) << file.path;
    json stats = json::parse(file.stats);
    EXPECT_TRUE(stats["minValues"].contains(physical("order_id"))) << file.stats;
    EXPECT_FALSE(stats["minValues"].contains("order_id")) << file.stats;
    // The Parquet schema: physical names and the schema's ids, nested fields too.
    sql::Rows schema = con.query("SELECT name, field_id FROM parquet_schema(" +
                                 sql::quote_literal(table + "/" + file.path) + ") WHERE field_id IS NOT NULL");
    std::map<std::string, int64_t> in_file;
    for (const auto& row : schema.rows) in_file[*row[0]] = std::stoll(*row[1]);
    for (const char* path : {"order_id", "amount", "address", "address.city", "address.geo", "address.geo.lat", "lines", "by_sku"}) {
      ASSERT_TRUE(in_file.count(physical(path))) << path << " is not in " << file.path << " under its physical name";
      EXPECT_EQ(in_file[physical(path)], id(path)) << path;
    }
    EXPECT_FALSE(in_file.count("order_id"));
    EXPECT_FALSE(in_file.count(physical("dt"))) << "a partition column stays out of the file";
  }
  expect_rows(shapes_rows(1, 13), "*");
  testing::expect_other_readers_accept(table);
}

// A new column gets the next id and a fresh physical name; the others keep theirs; older rows
// read it as NULL. A schema change that is not an addition is still refused.
TEST_P(ColumnMappingWrites, ANewColumnGetsTheNextIdAndOlderRowsReadNull) {
  std::vector<Column> before = {{"order_id", "long"}, {"dt", "date"}};
  write(before, "SELECT i::BIGINT AS order_id, DATE '2026-10-01' AS dt FROM range(1, 5) t(i)");
  json first = raw_metadata(table);
  int64_t max_before = std::stoll(first["configuration"]["delta.columnMapping.maxColumnId"].get<std::string>());

  std::vector<Column> after = {{"order_id", "long"}, {"dt", "date"}, {"coupon", "string"}};
  write(after, "SELECT i::BIGINT AS order_id, DATE '2026-10-02' AS dt, 'c' || i AS coupon FROM range(5, 9) t(i)");
  json second = raw_metadata(table);
  auto fields = fields_of(second);
  ASSERT_EQ(fields.size(), 3u);
  EXPECT_EQ(fields[0].second, fields_of(first)[0].second) << "order_id keeps its id and physical name";
  EXPECT_EQ(fields[2].first, "coupon");
  EXPECT_EQ(fields[2].second["metadata"][kId], max_before + 1);
  EXPECT_EQ(second["configuration"]["delta.columnMapping.maxColumnId"], std::to_string(max_before + 1));
  expect_rows("SELECT i::BIGINT AS order_id, CASE WHEN i >= 5 THEN 'c' || i END AS coupon FROM range(1, 9) t(i)",
              "order_id, coupon");

  std::string error = testing::error_of([&] {
    write({{"order_id", "long"}, {"dt", "date"}}, "SELECT 9::BIGINT AS order_id, DATE '2026-10-02' AS dt");
  });
  EXPECT_NE(error.find("column coupon was removed"), std::string::npos) << error;
  testing::expect_other_readers_accept(table);
}

// Optimize merges the small files of a mapped table into one that keeps the physical names.
TEST_P(ColumnMappingWrites, CompactionKeepsThePhysicalLayout) {
  for (int i = 0; i < 4; i++) write(shapes_schema(), shapes_rows(i * 10, i * 10 + 10));
  ASSERT_EQ(load_snapshot(table).files.size(), 12u);
  compact_table(con, table, 128LL << 20);
  Snapshot compacted = load_snapshot(table);
  EXPECT_EQ(compacted.files.size(), 3u);
  expect_rows(shapes_rows(0, 40), "*");
  testing::expect_other_readers_accept(table);
}

// The interop check is not a rubber stamp: a metaData whose nested field reuses a column's id,
// or lacks its physical name, fails it.
TEST_P(ColumnMappingWrites, TheValidatorRefusesIdsThatBreakTheRules) {
  write(shapes_schema(), shapes_rows(1, 4));
  json metadata = raw_metadata(table);
  json schema = json::parse(metadata["schemaString"].get<std::string>());
  json& city = schema["fields"][2]["type"]["fields"][0];
  ASSERT_EQ(city["name"], "city");
  city["metadata"][kId] = schema["fields"][0]["metadata"][kId];
  json& lat = schema["fields"][2]["type"]["fields"][1]["type"]["fields"][0];
  ASSERT_EQ(lat["name"], "lat");
  lat["metadata"].erase(kPhysical);
  metadata["schemaString"] = schema.dump();
  testing::write_text(commit_file_path(table, latest_version(table) + 1), json{{"metaData", metadata}}.dump() + "\n");
  auto [status, report] = testing::run_other_readers(table, true);
  EXPECT_EQ(status, 1) << report;
  EXPECT_NE(report.find("field address.city has id " + schema["fields"][0]["metadata"][kId].dump() + ", as order_id has"),
            std::string::npos) << report;
  EXPECT_NE(report.find("field address.geo.lat has no delta.columnMapping.id and physicalName"), std::string::npos) << report;
}

INSTANTIATE_TEST_SUITE_P(Modes, ColumnMappingWrites, ::testing::Values("name", "id"));

// Turning name mode on for a table written without it: its columns keep their names as physical
// names (their files hold them so), new columns get col- names; id mode is refused in place.
TEST(ColumnMappingModeChange, NameModeInPlaceIdModeRefused) {
  testing::TempDir dir;
  std::string table = dir / "table";
  sql::Database db;
  sql::Connection con(db);
  std::vector<Column> columns = {{"id", "long"}, {"note", "string"}};
  auto append = [&](const std::vector<Column>& with, const std::map<std::string, std::string>& properties,
                    const std::string& rows) {
    Commit commit = begin_commit(load_snapshot(table), with, {}, table, properties);
    commit.add(write_data_file(con, table, commit.metadata_after(), rows, with));
    return commit.publish();
  };
  append(columns, {}, "SELECT 1::BIGINT AS id, 'a' AS note");
  std::string error = testing::error_of([&] {
    append(columns, {{"delta.columnMapping.mode", "id"}}, "SELECT 2::BIGINT AS id, 'b' AS note");
  });
  EXPECT_NE(error.find("has delta.columnMapping.mode = none; changing it to id in place is not possible"),
            std::string::npos) << error;
  EXPECT_EQ(latest_version(table), 0);

  std::vector<Column> more = {{"id", "long"}, {"note", "string"}, {"coupon", "string"}};
  append(more, {{"delta.columnMapping.mode", "name"}}, "SELECT 2::BIGINT AS id, 'b' AS note, 'X' AS coupon");
  auto fields = fields_of(raw_metadata(table));
  EXPECT_EQ(fields[0].second["metadata"][kPhysical], "id");
  EXPECT_EQ(fields[1].second["metadata"][kPhysical], "note");
  EXPECT_TRUE(fields[2].second["metadata"][kPhysical].get<std::string>().starts_with("col-"));
  sql::Rows rows = con.query("SELECT id, note, coupon FROM (" + scan_sql(load_snapshot(table)) + ") ORDER BY id");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(*rows.rows[0][1], "a");
  EXPECT_FALSE(rows.rows[0][2].has_value());
  EXPECT_EQ(*rows.rows[1][2], "X");

  error = testing::error_of([&] { append(more, {{"delta.columnMapping.mode", "id"}}, "SELECT 3::BIGINT AS id, 'c' AS note, 'Y' AS coupon"); });
  EXPECT_NE(error.find("has delta.columnMapping.mode = name; changing it to id in place is not possible"),
            std::string::npos) << error;
  testing::expect_other_readers_accept(table);
}

// Spark's column-mapped tables (reader 2 / writer 5, name and id mode) take appends, by their
// physical names and ids, and a compaction; the rows are Spark's plus the appended ones.
TEST(ColumnMappingOnSparksTables, AppendAndCompact) {
  for (const std::string name : {"table-with-columnmapping-mode-name", "table-with-columnmapping-mode-id"}) {
    testing::TempDir dir;
    std::string table = dir / "table";
    fs::copy(testing::test_data_dir() + "/golden/" + name + "/delta", table, fs::copy_options::recursive);
    sql::Database db;
    sql::Connection con(db);
    Snapshot spark = load_snapshot(table);
    std::string spark_rows = scan_sql(spark);
    con.exec("CREATE TABLE spark_rows AS " + spark_rows);
    int64_t spark_count = con.scalar_int("SELECT count(*) FROM spark_rows");
    ASSERT_GT(spark_count, 0) << name;

    // New rows: Spark's rows again (every type this table has), through the table's own metadata.
    for (int i = 0; i < 2; i++) {
      Snapshot snapshot = load_snapshot(table);
      Commit commit(snapshot);
      commit.add(write_data_file(con, table, snapshot.metadata, "SELECT * FROM spark_rows", snapshot.metadata.schema));
      commit.publish();
    }
    auto expect_three_copies = [&](const std::string& when) {
      std::string got = scan_sql(load_snapshot(table));
      std::string want = "SELECT * FROM spark_rows UNION ALL SELECT * FROM spark_rows UNION ALL SELECT * FROM spark_rows";
      EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + got + ")"), 3 * spark_count) << name << when;
      EXPECT_EQ(con.scalar_int("SELECT count(*) FROM ((" + got + ") EXCEPT ALL (" + want + "))"), 0) << name << when;
      EXPECT_EQ(con.scalar_int("SELECT count(*) FROM ((" + want + ") EXCEPT ALL (" + got + "))"), 0) << name << when;
    };
    expect_three_copies(" after the appends");
    compact_table(con, table, 128LL << 20);
    EXPECT_LT(load_snapshot(table).files.size(), spark.files.size() + 2) << name;
    expect_three_copies(" after optimize");
    // Spark's own data files use types lakestream never writes: the log and checkpoints only.
    auto [status, report] = testing::run_other_readers(table, true);
    EXPECT_EQ(status, 0) << report;
  }
}

}  // namespace
}  // namespace lakestream::delta
