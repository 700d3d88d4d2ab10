// Writing data files and commits, then reading them back: values and types through scan_sql,
// txn versions, the stats Spark would write, and the Parquet physical types.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "table/file_stats.h"
#include "table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using fixtures::orders_metadata;
using fixtures::orders_rows;
using fixtures::orders_schema;

class RoundTrip : public fixtures::TableTest {};

TEST_F(RoundTrip, TwoBatchesWithTxnReadBackWithValuesTypesAndStats) {
  Snapshot empty = load_snapshot(table);
  ASSERT_FALSE(empty.exists());
  EXPECT_EQ(empty.txn_version("s"), -1);

  const std::string long_note(40, 'z');
  Commit first(empty);
  first.set_metadata(orders_metadata());
  AddFile file1 = write_data_file(con, table, Metadata{}, orders_rows("(1, 2, 9.5, true, 'apple', 25.00, TIMESTAMPTZ '2026-10-01 09:05:00.123456+00'), "
                  "(2, NULL, 1.25, false, '" + long_note + "', 3.10, TIMESTAMPTZ '2026-10-01 08:00:00+00')"),
      orders_schema());
  first.add(file1);
  first.set_txn("s", 0);
  EXPECT_EQ(first.publish(), 0);

  Commit second(load_snapshot(table));
  AddFile file2 = write_data_file(con, table, Metadata{}, orders_rows("(3, 7, -2.0, NULL, NULL, -0.05, TIMESTAMPTZ '2026-10-02 00:00:00+00')"), orders_schema());
  second.add(file2);
  second.set_txn("s", 1);
  EXPECT_EQ(second.publish(), 1);

  Snapshot snapshot = load_snapshot(table);
  EXPECT_EQ(snapshot.version, 1);
  EXPECT_EQ(snapshot.min_reader_version, 1);
  EXPECT_EQ(snapshot.min_writer_version, 2);
  ASSERT_EQ(snapshot.files.size(), 2u);
  EXPECT_EQ(snapshot.files[0].path, file1.path);
  EXPECT_EQ(snapshot.files[0].version, 0);
  EXPECT_EQ(snapshot.files[1].path, file2.path);
  EXPECT_EQ(snapshot.files[1].version, 1);
  EXPECT_EQ(snapshot.txn_version("s"), 1);
  EXPECT_EQ(snapshot.txn_version("other"), -1);
  EXPECT_EQ(snapshot.metadata.schema.size(), 7u);
  EXPECT_EQ(snapshot.metadata.schema[5].type, "decimal(18,2)");
  EXPECT_FALSE(snapshot.metadata.id.empty());

  // Values and types, as a reader of the table sees them.
  sql::Rows rows = con.query(
      "SELECT order_id, qty, price, paid, note, CAST(amount AS VARCHAR) AS amount, CAST(ts AS VARCHAR) AS ts, "
      "typeof(order_id) || ' ' || typeof(qty) || ' ' || typeof(price) || ' ' || typeof(paid) || ' ' || typeof(note) "
      "|| ' ' || typeof(amount) || ' ' || typeof(ts) AS types FROM (" + scan_sql(snapshot) + ") ORDER BY order_id");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows.text(0, "types"), "BIGINT INTEGER DOUBLE BOOLEAN VARCHAR DECIMAL(18,2) TIMESTAMP WITH TIME ZONE");
  EXPECT_EQ(rows.text(0, "qty"), "2");
  EXPECT_EQ(rows.text(0, "price"), "9.5");
  EXPECT_EQ(rows.text(0, "paid"), "true");
  EXPECT_EQ(rows.text(0, "note"), "apple");
  EXPECT_EQ(rows.text(0, "amount"), "25.00");
  EXPECT_EQ(rows.text(0, "ts"), "2026-10-01 09:05:00.123456+00");
  EXPECT_FALSE(rows.at(1, "qty").has_value());
  EXPECT_EQ(rows.text(1, "note"), long_note);
  EXPECT_EQ(rows.text(2, "amount"), "-0.05");
  EXPECT_FALSE(rows.at(2, "paid").has_value());

  // Stats as Spark writes them (timestamps in ms, max rounded up; long strings have no max).
  nlohmann::json stats = nlohmann::json::parse(file1.stats);
  EXPECT_EQ(stats["numRecords"], 2);
  EXPECT_EQ(stats["minValues"]["order_id"], 1);
  EXPECT_EQ(stats["maxValues"]["order_id"], 2);
  EXPECT_EQ(stats["minValues"]["qty"], 2);
  EXPECT_EQ(stats["maxValues"]["price"], 9.5);
  EXPECT_EQ(stats["minValues"]["amount"], 3.1);
  EXPECT_EQ(stats["maxValues"]["amount"], 25.0);
  EXPECT_NE(file1.stats.find("\"amount\":25.00"), std::string::npos) << "decimals keep their scale: " << file1.stats;
  EXPECT_EQ(stats["minValues"]["ts"], "2026-10-01T08:00:00.000Z");
  EXPECT_EQ(stats["maxValues"]["ts"], "2026-10-01T09:05:00.124Z");
  EXPECT_EQ(stats["minValues"]["note"], "apple");
  EXPECT_FALSE(stats["maxValues"].contains("note"));
  EXPECT_FALSE(stats["minValues"].contains("paid"));
  EXPECT_EQ(stats["nullCount"]["qty"], 1);
  EXPECT_EQ(stats["nullCount"]["paid"], 0);
  EXPECT_EQ(stats["nullCount"]["order_id"], 0);
  EXPECT_EQ(nlohmann::json::parse(file2.stats)["nullCount"]["note"], 1);

  // The add action carries the file's real size.
  EXPECT_EQ(file1.size, static_cast<int64_t>(read_file(table + "/" + file1.path).size()));

  // Physical types: timestamps INT64 micros adjusted to UTC, decimal(18,2) as INT64.
  sql::Rows schema = con.query("SELECT name, type, CAST(logical_type AS VARCHAR) AS logical, converted_type FROM parquet_schema(" +
                               sql::quote_literal(table + "/" + file1.path) + ")");
  bool saw_ts = false, saw_amount = false;
  for (size_t r = 0; r < schema.size(); r++) {
    if (schema.text(r, "name") == "ts") {
      saw_ts = true;
      EXPECT_EQ(schema.text(r, "type"), "INT64");
      EXPECT_NE(schema.text(r, "logical").find("isAdjustedToUTC=1"), std::string::npos) << schema.text(r, "logical");
      EXPECT_NE(schema.text(r, "logical").find("MICROS=MicroSeconds"), std::string::npos) << schema.text(r, "logical");
    }
    if (schema.text(r, "name") == "amount") {
      saw_amount = true;
      EXPECT_EQ(schema.text(r, "type"), "INT64");
      EXPECT_EQ(schema.text(r, "converted_type"), "DECIMAL");
    }
  }
  EXPECT_TRUE(saw_ts && saw_amount);
}

TEST_F(RoundTrip, PartitionedWritesEscapeFoldersAndReadBackTypedValues) {
  Metadata metadata;
  metadata.schema = {{"id", "long"}, {"day", "date"}, {"region", "string"}};
  metadata.partition_columns = {"day", "region"};
  Commit commit(load_snapshot(table));
  commit.set_metadata(metadata);
  AddFile odd = write_data_file(con, table, Metadata{}, "SELECT 1 AS id", metadata.schema,
                                {{"day", "2026-10-01"}, {"region", "eu west/1:%"}});
  AddFile nulls = write_data_file(con, table, Metadata{}, "SELECT 2 AS id", metadata.schema,
                                  {{"day", std::nullopt}, {"region", std::nullopt}});
  commit.add(odd);
  commit.add(nulls);
  commit.publish();

  EXPECT_EQ(odd.path.rfind("day=2026-10-01/region=eu%20west%2F1%3A%25/part-", 0), 0u) << odd.path;
  EXPECT_EQ(nulls.path.rfind("day=__HIVE_DEFAULT_PARTITION__/region=__HIVE_DEFAULT_PARTITION__/", 0), 0u) << nulls.path;
  EXPECT_TRUE(path_exists(table + "/" + odd.path));
  // In the log the path is a URI: the '%' of the folder name is itself escaped.
  std::string log = read_file(table + "/_delta_log/00000000000000000000.json");
  EXPECT_NE(log.find("region=eu%2520west%252F1%253A%2525"), std::string::npos) << log;
  // Partition columns are not in the file.
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM parquet_schema(" + sql::quote_literal(table + "/" + odd.path) +
                           ") WHERE name IN ('day', 'region')"),
            0);

  Snapshot snapshot = load_snapshot(table);
  ASSERT_EQ(snapshot.files.size(), 2u);
  EXPECT_EQ(snapshot.files[0].partition_values.at("region"), "eu west/1:%");
  EXPECT_FALSE(snapshot.files[1].partition_values.at("day").has_value());
  sql::Rows rows = con.query("SELECT id, CAST(day AS VARCHAR) AS day, typeof(day) AS day_type, region FROM (" +
                             scan_sql(snapshot) + ") ORDER BY id");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows.text(0, "day"), "2026-10-01");
  EXPECT_EQ(rows.text(0, "day_type"), "DATE");
  EXPECT_EQ(rows.text(0, "region"), "eu west/1:%");
  EXPECT_FALSE(rows.at(1, "day").has_value());
  EXPECT_FALSE(rows.at(1, "region").has_value());
}

TEST_F(RoundTrip, NoRowsWriteNoFile) {
  AddFile file = write_data_file(con, table, Metadata{}, orders_rows("(1, 2, 9.5, true, 'a', 1.00, now())") + " WHERE false",
                                 orders_schema());
  EXPECT_EQ(file.size, 0);
  EXPECT_TRUE(file.path.empty());
  EXPECT_TRUE(list_dir(table).empty());
}

TEST_F(RoundTrip, EmptyTableScansAsAnEmptyRelationOfTheSchema) {
  Commit commit(load_snapshot(table));
  commit.set_metadata(orders_metadata());
  commit.publish();
  Snapshot snapshot = load_snapshot(table);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + scan_sql(snapshot, true) + ")"), 0);
  sql::Rows columns = con.query("DESCRIBE " + scan_sql(snapshot, true));
  ASSERT_EQ(columns.size(), 8u);
  EXPECT_EQ(columns.text(0, "column_name"), "order_id");
  EXPECT_EQ(columns.text(6, "column_type"), "TIMESTAMP WITH TIME ZONE");
  EXPECT_EQ(columns.text(7, "column_name"), "_file_version");
}

TEST(StatsTimestamp, TruncatesMinAndRoundsMaxToTheMillisecond) {
  EXPECT_EQ(stats_timestamp(1790845500123456, false), "2026-10-01T09:05:00.123Z");
  EXPECT_EQ(stats_timestamp(1790845500123456, true), "2026-10-01T09:05:00.124Z");
  EXPECT_EQ(stats_timestamp(1790845500123000, true), "2026-10-01T09:05:00.123Z");
  EXPECT_EQ(stats_timestamp(-500, false), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(stats_timestamp(-500, true), "1970-01-01T00:00:00.000Z");
}

}  // namespace
}  // namespace lakestream::delta
