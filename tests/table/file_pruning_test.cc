// Pruning by a time range: by partition value for a partition column (a date partition holds
// its whole day), by min/max statistics otherwise, and a file without statistics is kept.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "table/file_pruning.h"
#include "table_fixtures.h"
#include "util/error.h"

namespace lakestream::delta {
namespace {

constexpr int64_t kHourUs = 3600LL * 1000000;
constexpr int64_t k20261001 = 1790812800LL * 1000000;  // 2026-10-01 00:00 UTC

class FilePruning : public fixtures::TableTest {
 protected:
  std::vector<Column> schema{{"id", "long"}, {"ts", "timestamp"}, {"dt", "date"}};

  // Three days, each a batch of two files' worth: 09:00 and 15:00 of Oct 1, 2 and 3.
  Snapshot make_table() {
    for (int day = 0; day < 3; day++) {
      Snapshot snapshot = load_snapshot(table);
      Commit commit(snapshot);
      if (!snapshot.exists()) {
        Metadata metadata;
        metadata.schema = schema;
        metadata.partition_columns = {"dt"};
        commit.set_metadata(metadata);
      }
      for (int hour : {9, 15}) {
        std::string rows = "SELECT " + std::to_string(day * 100 + hour) + " AS id, TIMESTAMPTZ '2026-10-0" +
                           std::to_string(day + 1) + " " + std::to_string(hour) + ":30:00+00' AS ts, DATE '2026-10-0" +
                           std::to_string(day + 1) + "' AS dt";
        for (const auto& file : write_partitioned_files(con, table, Metadata{}, rows, schema, {"dt"})) commit.add(file);
      }
      commit.publish();
    }
    return load_snapshot(table);
  }

  std::string ids(const Snapshot& snapshot) {
    auto v = con.scalar("SELECT string_agg(id::VARCHAR, ',' ORDER BY id) FROM (" + scan_sql(snapshot) + ")");
    return v ? *v : "";
  }
};

TEST_F(FilePruning, ByDatePartitionKeepsTheDaysTheRangeTouches) {
  Snapshot all = make_table();
  ASSERT_EQ(all.files.size(), 6u);
  // From Oct 2 23:00 to Oct 3 01:00: two days' partitions, four files.
  Snapshot pruned = prune_files(con, all, "dt", {k20261001 + 47 * kHourUs, k20261001 + 49 * kHourUs});
  EXPECT_EQ(pruned.files.size(), 4u);
  EXPECT_EQ(ids(pruned), "109,115,209,215");
}

TEST_F(FilePruning, ByStatisticsKeepsTheFilesWhoseMinMaxOverlap) {
  Snapshot all = make_table();
  Snapshot pruned = prune_files(con, all, "ts", {k20261001 + 24 * kHourUs + 9 * kHourUs + 30 * 60000000LL,
                                                 k20261001 + 24 * kHourUs + 10 * kHourUs});
  ASSERT_EQ(pruned.files.size(), 1u);  // exactly 09:30 of Oct 2 (the lower bound is inclusive)
  EXPECT_EQ(ids(pruned), "109");
  // Open-ended: everything from Oct 3.
  EXPECT_EQ(ids(prune_files(con, all, "ts", {k20261001 + 48 * kHourUs})), "209,215");
  // A file without statistics may hold anything: kept.
  all.files[0].stats.clear();
  EXPECT_EQ(ids(prune_files(con, all, "ts", {k20261001 + 48 * kHourUs})), "9,209,215");
  EXPECT_THROW(prune_files(con, all, "no_such_column", {0}), Error);
}

// How often DuckDB's plan for a query names a Parquet scan (pruned partitions plan none).
int parquet_scans(sql::Connection& con, const std::string& query) {
  sql::Rows plan = con.query("EXPLAIN " + query);
  std::string text;
  for (const auto& row : plan.rows)
    for (const auto& value : row) text += value.value_or("");
  int scans = 0;
  for (size_t at = text.find("READ_PARQUET"); at != std::string::npos; at = text.find("READ_PARQUET", at + 1)) scans++;
  return scans;
}

TEST_F(FilePruning, AQueryOnAPartitionPlansOnlyThatPartitionsFiles) {
  std::string scan = scan_sql(make_table());
  int all_days = parquet_scans(con, "SELECT * FROM (" + scan + ")");  // one scan per day
  ASSERT_GT(all_days, 0);
  EXPECT_EQ(all_days % 3, 0);
  std::string one_day = "SELECT id FROM (" + scan + ") WHERE dt = DATE '2026-10-02'";
  EXPECT_EQ(parquet_scans(con, one_day), all_days / 3);
  EXPECT_EQ(con.scalar("SELECT string_agg(id::VARCHAR, ',' ORDER BY id) FROM (" + one_day + ")"), "109,115");
}

}  // namespace
}  // namespace lakestream::delta
