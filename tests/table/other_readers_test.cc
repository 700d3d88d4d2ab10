// Other readers see our tables as we do: DuckDB's read_parquet over the snapshot's live files,
// with the partition columns from the Hive folders, returns the rows scan_sql returns, after a
// rewrite and across a checkpoint.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

TEST(OtherReaders, DuckDbReadParquetOverTheSnapshotFilesSeesTheTable) {
  testing::TempDir dir;
  std::string table = dir / "sales";
  sql::Database db;
  sql::Connection con{db};
  std::vector<Column> schema{{"id", "long"}, {"amount", "decimal(18,2)"}, {"dt", "date"}};
  Metadata metadata;
  metadata.schema = schema;
  metadata.partition_columns = {"dt"};
  AddFile first_file;
  for (int version = 0; version < 12; version++) {  // a checkpoint at 10
    Snapshot snapshot = load_snapshot(table);
    Commit commit(snapshot);
    if (version == 0) commit.set_metadata(metadata);
    // Version 5 replaces the first day's file: a reader must not see both.
    if (version == 5) commit.remove(first_file);
    std::string rows = "SELECT " + std::to_string(version) + " AS id, " + std::to_string(version) +
                       ".5 AS amount, DATE '2026-03-01' + " + std::to_string(version % 3) + " AS dt";
    if (version == 5) rows += " UNION ALL SELECT 0, 0.5, DATE '2026-03-01'";
    for (const auto& file : write_partitioned_files(con, table, Metadata{}, rows, schema, {"dt"})) {
      if (version == 0) first_file = file;
      commit.add(file);
    }
    commit.publish();
  }
  Snapshot snapshot = load_snapshot(table);
  std::string files;
  for (const auto& file : snapshot.files) files += (files.empty() ? "" : ", ") + sql::quote_literal(table + "/" + file.path);
  std::string theirs = "SELECT id, amount, dt FROM read_parquet([" + files + "], hive_partitioning = true, "
                       "hive_types = {'dt': DATE})";
  std::string summary = "SELECT count(*) || ' rows, ' || sum(amount) || ', ' || count(DISTINCT dt) || ' days, ids ' || "
                        "string_agg(id::VARCHAR, ',' ORDER BY id) FROM ";
  std::string ours = *con.scalar(summary + "(" + scan_sql(snapshot) + ")");
  EXPECT_EQ(ours, "12 rows, 72.00, 3 days, ids 0,1,2,3,4,5,6,7,8,9,10,11");
  // 12 versions wrote 13 rows, id 0 twice (the second replacing the first): each is read once.
  EXPECT_EQ(*con.scalar(summary + "(" + theirs + ")"), ours);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM ((" + theirs + ") EXCEPT ALL (SELECT id, amount, dt FROM (" +
                           scan_sql(snapshot) + ")))"),
            0);
}

}  // namespace
}  // namespace lakestream::delta
