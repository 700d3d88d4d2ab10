// Partitioned tables: one file per partition value per batch, Hive folders with Delta's escaping
// and null folder, string partition values in the log, and typed values back through scan_sql.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>

#include "support/test_support.h"
#include "table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

class PartitionedWrite : public fixtures::TableTest {
 protected:
  std::vector<Column> schema{{"id", "long"}, {"ts", "timestamp"}, {"dt", "date"}, {"region", "string"}};

  // One batch, the rows of `select`, committed (the first makes the table); `last` and `rows` as
  // write_partitioned_files takes them.
  std::vector<AddFile> write_batch(const std::string& select, const std::vector<std::string>& partition_by,
                                   LastPartition* last = nullptr, int64_t rows = -1) {
    Snapshot snapshot = load_snapshot(table);
    Commit commit(snapshot);
    if (!snapshot.exists()) {
      Metadata metadata;
      metadata.schema = schema;
      metadata.partition_columns = partition_by;
      commit.set_metadata(metadata);
    }
    auto files = write_partitioned_files(con, table, Metadata{}, select, schema, partition_by, last, rows);
    for (const auto& file : files) commit.add(file);
    commit.publish();
    return files;
  }

  std::vector<AddFile> write(const std::string& values, const std::vector<std::string>& partition_by) {
    return write_batch("SELECT * FROM (VALUES " + values + ") AS t(id, ts, dt, region)", partition_by);
  }

  // The folders of a batch's files, each once: no partition gets two files in a batch.
  static std::set<std::string> distinct_folders(const std::vector<AddFile>& files) {
    std::set<std::string> folders;
    for (const auto& file : files)
      EXPECT_TRUE(folders.insert(std::filesystem::path(file.path).parent_path().string()).second) << file.path;
    return folders;
  }
};

TEST_F(PartitionedWrite, OneFilePerPartitionWithDeltaPartitionValuesAndEscaping) {
  auto files = write("(1, TIMESTAMPTZ '2026-03-02 09:00:00+00', DATE '2026-03-02', 'eu/west 1'), "
                     "(2, TIMESTAMPTZ '2026-03-02 10:00:00+00', DATE '2026-03-02', 'eu/west 1'), "
                     "(3, TIMESTAMPTZ '2026-03-03 01:00:00+00', DATE '2026-03-03', NULL), "
                     "(4, TIMESTAMPTZ '2026-03-03 02:00:00+00', DATE '2026-03-03', ''), "
                     "(5, TIMESTAMPTZ '2026-03-04 02:00:00+00', NULL, 'us')",
                     {"dt", "region"});
  // (2026-03-02, eu/west 1), (2026-03-03, null) twice ('' is null, as in Spark), (null, us).
  ASSERT_EQ(files.size(), 3u);
  std::map<std::string, AddFile> by_folder;
  for (const auto& file : files) by_folder[std::filesystem::path(file.path).parent_path().string()] = file;
  ASSERT_TRUE(by_folder.count("dt=2026-03-02/region=eu%2Fwest%201"));
  ASSERT_TRUE(by_folder.count("dt=2026-03-03/region=__HIVE_DEFAULT_PARTITION__"));
  ASSERT_TRUE(by_folder.count("dt=__HIVE_DEFAULT_PARTITION__/region=us"));
  const auto& eu = by_folder["dt=2026-03-02/region=eu%2Fwest%201"];
  EXPECT_EQ(eu.partition_values.at("dt"), std::optional<std::string>("2026-03-02"));
  EXPECT_EQ(eu.partition_values.at("region"), std::optional<std::string>("eu/west 1"));
  EXPECT_EQ(by_folder["dt=2026-03-03/region=__HIVE_DEFAULT_PARTITION__"].partition_values.at("region"), std::nullopt);
  EXPECT_NE(eu.stats.find("\"numRecords\":2"), std::string::npos) << eu.stats;

  // The log holds the strings; the file holds no partition column; a scan types them back.
  std::string log = read_file(table + "/_delta_log/00000000000000000000.json");
  EXPECT_NE(log.find("\"partitionColumns\":[\"dt\",\"region\"]"), std::string::npos);
  EXPECT_NE(log.find("\"region\":\"eu/west 1\""), std::string::npos);
  EXPECT_EQ(con.scalar("SELECT string_agg(name, ',' ORDER BY name) FROM parquet_schema(" +
                       sql::quote_literal(table + "/" + eu.path) + ") WHERE num_children IS NULL"),
            "id,ts");
  EXPECT_EQ(con.scalar("SELECT string_agg(id || ':' || coalesce(CAST(dt AS VARCHAR), '-') || ':' || "
                       "coalesce(region, '-'), ' ' ORDER BY id) FROM (" + scan_sql(load_snapshot(table)) + ")"),
            "1:2026-03-02:eu/west 1 2:2026-03-02:eu/west 1 3:2026-03-03:- 4:2026-03-03:- 5:-:us");
}

TEST_F(PartitionedWrite, TimestampPartitionValuesAreIsoUtcTextAsSparkWritesThem) {
  schema = {{"id", "long"}, {"ts", "timestamp"}};
  Commit commit(load_snapshot(table));
  Metadata metadata;
  metadata.schema = schema;
  metadata.partition_columns = {"ts"};
  commit.set_metadata(metadata);
  auto files = write_partitioned_files(con, table, Metadata{}, "SELECT 1 AS id, TIMESTAMPTZ '2026-03-02 09:30:00.25+02' AS ts",
                                       schema, {"ts"});
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].partition_values.at("ts"), std::optional<std::string>("2026-03-02T07:30:00.250000Z"));
  EXPECT_TRUE(files[0].path.starts_with("ts=2026-03-02T07%3A30%3A00.250000Z/")) << files[0].path;
  for (const auto& file : files) commit.add(file);
  commit.publish();
  EXPECT_EQ(con.scalar("SELECT epoch_ms(ts) FROM (" + scan_sql(load_snapshot(table)) + ")"),
            std::to_string(1772436600250LL));
}

// Generated batches, of one partition (written straight from the query) and skewed over a few
// days and regions (through a temporary table): every row comes back once, under its own
// partition values, and no partition gets two files in a batch.
TEST_F(PartitionedWrite, GeneratedBatchesPutEveryRowOnceInItsPartition) {
  con.exec("CREATE TABLE source AS SELECT i::BIGINT AS id, make_timestamp(1790812800000000 + i * 37000000)::TIMESTAMPTZ AS ts, "
           "CASE WHEN i % 97 = 0 THEN NULL ELSE DATE '2026-10-01' - CAST(hash(i) % 10 < 8 AS INTEGER) * "
           "CAST(hash(i * 3) % 4 AS INTEGER) END AS dt, "
           "CASE hash(i * 7) % 5 WHEN 0 THEN NULL WHEN 1 THEN '' WHEN 2 THEN 'eu/west 1' ELSE 'us' END AS region "
           "FROM range(6000) AS r(i)");
  for (int batch = 0; batch < 4; batch++) {
    // The fourth: one day and region.
    std::string rows = batch < 3 ? "SELECT * FROM source WHERE id % 3 = " + std::to_string(batch)
                                 : "SELECT id + 6000 AS id, ts, DATE '2026-10-02' AS dt, 'eu/west 1' AS region FROM source";
    auto files = write_batch(rows, {"dt", "region"});
    EXPECT_EQ(distinct_folders(files).size(), static_cast<size_t>(con.scalar_int(
                                                  "SELECT count(DISTINCT (dt, NULLIF(region, ''))) FROM (" + rows + ")")));
  }
  std::string back = scan_sql(load_snapshot(table));
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + back + ")"), 12000);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (SELECT id, ts, dt, NULLIF(region, '') AS region FROM source UNION ALL "
                           "SELECT id + 6000, ts, DATE '2026-10-02', 'eu/west 1' FROM source "
                           "EXCEPT SELECT id, ts, dt, region FROM (" + back + "))"),
            0);
}

// A partition column that changes between reads of the same rows (random(): a batch of three
// rows is often one partition when counted, then not when written): every row is still written
// once, in one file, and no partition gets two files in a batch.
TEST_F(PartitionedWrite, APartitionValueThatChangesBetweenReadsStillPutsEveryRowInOneFile) {
  schema = {{"id", "long"}, {"flag", "boolean"}};
  for (int batch = 0; batch < 40; batch++)
    distinct_folders(write_batch(
        "SELECT (" + std::to_string(batch * 3) + " + i)::BIGINT AS id, random() < 0.5 AS flag FROM range(3) AS r(i)", {"flag"}));
  EXPECT_EQ(con.scalar("SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || min(id) || ' ' || max(id) FROM (" +
                       scan_sql(load_snapshot(table)) + ")"),
            "120 120 0 119");
}

// A writer that keeps its last batch's partition writes the next batch there first. Generated
// batches (most in the last one's day, some in a new day, some across days, some in the null
// partition): every row once, no partition twice in a batch, the partition kept exactly when a
// batch fell in one; and a batch that falls in the kept partition is read once (its partition
// column counts the rows that computed it), where counting rows per partition first reads it twice.
TEST_F(PartitionedWrite, ABatchInTheLastBatchsPartitionIsWrittenThereInOnePass) {
  schema = {{"id", "long"}, {"dt", "date"}};
  con.exec("CREATE SEQUENCE computed");
  std::mt19937_64 rng(2212);
  LastPartition last;
  int64_t next_id = 0, day = 0, expected_passes = 0;
  for (int batch = 0; batch < 60; batch++) {
    const int64_t rows = 1 + static_cast<int64_t>(rng() % 300);
    const int kind = static_cast<int>(rng() % 10);  // 0: a new day, 1: across two days, 2: null, else the last day
    if (kind == 0) day++;
    std::string dt = "DATE '2026-10-01' + " + std::to_string(day) + " + (nextval('computed') * 0)::INTEGER";
    if (kind == 1) dt += " + (i % 2)::INTEGER";
    if (kind == 2) dt = "CASE WHEN nextval('computed') >= 0 THEN NULL::DATE END";
    std::string select = "SELECT (" + std::to_string(next_id) + " + i)::BIGINT AS id, " + dt +
                         " AS dt FROM range(" + std::to_string(rows) + ") AS r(i)";
    // The batch's partition when it falls in one (a batch of one row across days is one day).
    std::optional<PartitionValues> single;
    if (kind == 2) single = PartitionValues{{"dt", std::nullopt}};
    else if (kind != 1 || rows == 1)
      single = PartitionValues{{"dt", con.scalar("SELECT CAST(DATE '2026-10-01' + " + std::to_string(day) + " AS VARCHAR)")}};
    const bool same_as_last = last.values && single && *last.values == *single;
    const int64_t before = con.scalar_int("SELECT nextval('computed')");
    auto files = write_batch(select, {"dt"}, &last, rows);
    const int64_t passes = (con.scalar_int("SELECT nextval('computed')") - before - 1) / rows;
    EXPECT_EQ(distinct_folders(files).size(), kind == 1 && rows > 1 ? 2u : 1u) << "batch " << batch;
    EXPECT_EQ(last.values, single) << "batch " << batch;
    if (same_as_last) EXPECT_EQ(passes, 1) << "batch " << batch << " fell in the kept partition";
    else EXPECT_GE(passes, 2) << "batch " << batch;
    expected_passes += same_as_last ? 1 : 0;
    next_id += rows;
  }
  EXPECT_GT(expected_passes, 30);  // most batches fell in the kept partition
  EXPECT_EQ(con.scalar("SELECT count(*) || ' ' || count(DISTINCT id) || ' ' || min(id) || ' ' || max(id) FROM (" +
                       scan_sql(load_snapshot(table)) + ")"),
            std::to_string(next_id) + " " + std::to_string(next_id) + " 0 " + std::to_string(next_id - 1));
}

TEST_F(PartitionedWrite, AnEmptyBatchWritesNoFile) {
  EXPECT_TRUE(write_partitioned_files(con, table, Metadata{}, "SELECT 1::BIGINT AS id, NULL::TIMESTAMPTZ AS ts, NULL::DATE AS dt, "
                                                  "'x' AS region WHERE false", schema, {"dt"})
                  .empty());
  EXPECT_FALSE(std::filesystem::exists(table));
}

}  // namespace
}  // namespace lakestream::delta
