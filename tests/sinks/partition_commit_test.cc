// Per-partition commits of ingest workers: an owner that lost a partition and commits late
// finds the new owner's txn and leaves out the offsets already there.
#include "sinks/partition_commit.h"

#include <gtest/gtest.h>

#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/parquet_file.h"

namespace lakestream::testing {
namespace {

struct Topic {
  TempDir dir;
  std::string table = dir / "bronze";
  sql::Database db;
  sql::Connection con{db};
  std::vector<delta::Column> schema{{"partition", "integer", true}, {"offset", "long", true}, {"_batch_id", "long", true}};

  // Partitions 0 and 1, offsets 0 to 99 each.
  Topic() {
    con.exec("CREATE TABLE records AS SELECT (i % 2)::INTEGER AS partition, (i // 2)::BIGINT AS \"offset\" FROM range(200) t(i)");
  }

  // Commits what a worker read: `ranges` of the two partitions.
  int64_t commit(const std::map<int32_t, OffsetRange>& ranges) {
    std::string read;
    for (const auto& [p, r] : ranges)
      read += std::string(read.empty() ? "" : " OR ") + "(partition = " + std::to_string(p) + " AND \"offset\" >= " +
              std::to_string(r.start) + " AND \"offset\" < " + std::to_string(r.end) + ")";
    PartitionSink sink;
    sink.table = table;
    sink.stream = "read_orders";
    sink.schema = schema;
    sink.record.stream = "read_orders";
    return commit_partitions(sink, ranges, [&](const FirstOffsets& from, int64_t version, const delta::Metadata&) {
      delta::AddFile file = delta::write_data_file(con, table, delta::Metadata{}, "SELECT partition, \"offset\", " + std::to_string(version) + "::BIGINT AS _batch_id FROM records WHERE (" +
                          read + ") AND (" + rows_condition(from) + ")", schema);
      return file.path.empty() ? std::vector<delta::AddFile>{} : std::vector<delta::AddFile>{file};
    });
  }

  sql::Rows rows(const std::string& select, const std::string& where = "true") {
    std::string files;
    for (const auto& f : delta::load_snapshot(table).files)
      files += std::string(files.empty() ? "" : ", ") + "'" + table + "/" + f.path + "'";
    return con.query(select + " FROM read_parquet([" + files + "]) WHERE " + where);
  }
};

TEST(PartitionCommit, AStaleOwnerLeavesOutWhatTheNewOwnerCommitted) {
  Topic t;
  // The new owner of partition 0 committed offsets 0-59 (and all of partition 1) first.
  EXPECT_EQ(t.commit({{0, {0, 60}}, {1, {0, 100}}}), 0);
  // The old owner read 0-99 of partition 0 and 0-49 of partition 1 before it lost them.
  EXPECT_EQ(t.commit({{0, {0, 100}}, {1, {0, 50}}}), 1);
  auto once = t.rows("SELECT count(*) AS n, count(DISTINCT (partition, \"offset\")) AS distinct_n");
  EXPECT_EQ(once.text(0, "n"), "200");
  EXPECT_EQ(once.text(0, "distinct_n"), "200");
  // The late commit took only 60-99 of partition 0, and its rows carry its version as _batch_id.
  auto late = t.rows("SELECT min(\"offset\") AS lo, max(\"offset\") AS hi, count(*) AS n, min(partition) AS p", "_batch_id = 1");
  EXPECT_EQ(late.text(0, "lo"), "60");
  EXPECT_EQ(late.text(0, "hi"), "99");
  EXPECT_EQ(late.text(0, "n"), "40");
  EXPECT_EQ(late.text(0, "p"), "0");
  auto snapshot = delta::load_snapshot(t.table);
  EXPECT_EQ(snapshot.txn_version(partition_app_id("read_orders", 0)), 99);
  EXPECT_EQ(snapshot.txn_version(partition_app_id("read_orders", 1)), 99);
  EXPECT_EQ(committed_positions(snapshot, "read_orders"), (std::map<int32_t, int64_t>{{0, 100}, {1, 100}}));
  // Committing it again changes nothing.
  EXPECT_EQ(t.commit({{0, {0, 100}}, {1, {0, 50}}}), -1);
  EXPECT_EQ(delta::load_snapshot(t.table).version, 1);
}

TEST(PartitionCommit, AnEmptyRangeRecordsWhereAPartitionStarts) {
  Topic t;
  // A `latest` start at offset 40: nothing read, the position recorded.
  EXPECT_EQ(t.commit({{0, {40, 40}}}), 0);
  EXPECT_EQ(committed_positions(delta::load_snapshot(t.table), "read_orders").at(0), 40);
  EXPECT_EQ(t.commit({{0, {40, 40}}}), -1);
}

TEST(PartitionCommit, RowsConditionNamesEachPartitionsFirstOffset) {
  EXPECT_EQ(rows_condition({}), "false");
  EXPECT_EQ(rows_condition({{0, 5}, {3, 0}}), "(partition = 0 AND \"offset\" >= 5) OR (partition = 3 AND \"offset\" >= 0)");
}

}  // namespace
}  // namespace lakestream::testing
