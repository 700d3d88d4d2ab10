// A table's history: copy-on-write (remove + add in one commit), the commits as incremental
// readers see them, time travel, per-row file versions, and a schema change.
#include <gtest/gtest.h>

#include "support/test_support.h"
#include "table_fixtures.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

class History : public ::testing::Test {
 protected:
  void SetUp() override {
    f0 = fixtures::create_ids_table(con, table, "1, 2");  // version 0
    Commit append(load_snapshot(table));                  // version 1
    f1 = fixtures::write_ids(con, table, "3");
    append.add(f1);
    append.set_txn("s", 0);
    append.publish();
    Commit rewrite(load_snapshot(table));  // version 2: file 0 rewritten without id 2
    f2 = fixtures::write_ids(con, table, "1");
    rewrite.remove(f0);
    rewrite.add(f2);
    rewrite.set_txn("s", 1);
    rewrite.set_operation("MERGE");
    rewrite.set_commit_info({{"lakestream", {{"batch", 1}}}});
    rewrite.publish();
  }

  testing::TempDir dir;
  std::string table = dir / "t";
  sql::Database db;
  sql::Connection con{db};
  AddFile f0, f1, f2;
};

TEST_F(History, CopyOnWriteCommitReplacesTheFile) {
  Snapshot snapshot = load_snapshot(table);
  EXPECT_EQ(snapshot.version, 2);
  ASSERT_EQ(snapshot.files.size(), 2u);
  EXPECT_EQ(snapshot.files[0].path, f1.path);
  EXPECT_EQ(snapshot.files[1].path, f2.path);
  EXPECT_EQ(fixtures::scanned_ids(con, snapshot), "1,3");
  EXPECT_EQ(snapshot.txn_version("s"), 1);
  EXPECT_EQ(latest_version(table), 2);
  // The removed file stays on disk for time travel.
  EXPECT_TRUE(path_exists(table + "/" + f0.path));
}

TEST_F(History, ReadCommitsGivesEachVersionsActions) {
  std::vector<CommitEntry> commits = read_commits(table, 0, 2);
  ASSERT_EQ(commits.size(), 3u);
  EXPECT_EQ(commits[0].version, 0);
  EXPECT_TRUE(commits[0].changes_metadata);
  ASSERT_EQ(commits[0].adds.size(), 1u);
  EXPECT_EQ(commits[0].adds[0].path, f0.path);
  EXPECT_EQ(commits[0].adds[0].version, 0);
  EXPECT_EQ(commits[0].commit_info["operation"], "WRITE");

  EXPECT_FALSE(commits[1].changes_metadata);
  EXPECT_EQ(commits[1].txns.at("s"), 0);
  EXPECT_EQ(commits[1].adds.at(0).stats, f1.stats);
  EXPECT_EQ(commits[1].commit_info["readVersion"], 0);

  ASSERT_EQ(commits[2].removes.size(), 1u);
  EXPECT_EQ(commits[2].removes[0].path, f0.path);
  EXPECT_GT(commits[2].removes[0].deletion_timestamp, 0);
  ASSERT_EQ(commits[2].adds.size(), 1u);
  EXPECT_EQ(commits[2].adds[0].path, f2.path);
  EXPECT_EQ(commits[2].adds[0].version, 2);
  EXPECT_EQ(commits[2].txns.at("s"), 1);
  EXPECT_EQ(commits[2].commit_info["operation"], "MERGE");
  EXPECT_EQ(commits[2].commit_info["engineInfo"], "lakestream/0.1");
  EXPECT_EQ(commits[2].commit_info["lakestream"]["batch"], 1);
  EXPECT_EQ(commits[2].commit_info["isBlindAppend"], false);

  EXPECT_EQ(read_commits(table, 1, 1).size(), 1u);
  EXPECT_TRUE(read_commits(table, 3, 2).empty());
}

TEST_F(History, TimeTravelReadsOlderVersions) {
  Snapshot v0 = load_snapshot(table, 0);
  EXPECT_EQ(v0.version, 0);
  EXPECT_EQ(fixtures::scanned_ids(con, v0), "1,2");
  EXPECT_EQ(v0.txn_version("s"), -1);
  Snapshot v1 = load_snapshot(table, 1);
  EXPECT_EQ(fixtures::scanned_ids(con, v1), "1,2,3");
  EXPECT_EQ(v1.txn_version("s"), 0);
  EXPECT_THROW(load_snapshot(table, 3), Error);
}

TEST_F(History, FileVersionTellsWhichCommitAddedEachRow) {
  Snapshot v1 = load_snapshot(table, 1);
  auto versions = con.scalar("SELECT string_agg(id || ':' || _file_version, ',' ORDER BY id) FROM (" +
                             scan_sql(v1, true) + ")");
  EXPECT_EQ(versions.value_or(""), "1:0,2:0,3:1");
  auto latest = con.scalar("SELECT string_agg(id || ':' || _file_version, ',' ORDER BY id) FROM (" +
                           scan_sql(load_snapshot(table), true) + ")");
  EXPECT_EQ(latest.value_or(""), "1:2,3:1");
}

TEST_F(History, AddedColumnReadsAsNullFromOlderFiles) {
  Metadata widened = fixtures::ids_metadata();
  widened.schema.push_back({"note", "string"});
  Snapshot before = load_snapshot(table);
  Commit change(before);
  change.set_metadata(widened);
  change.set_operation("CHANGE COLUMN");
  EXPECT_EQ(change.publish(), 3);

  Snapshot after = load_snapshot(table);
  EXPECT_EQ(after.metadata.id, before.metadata.id);
  EXPECT_EQ(after.metadata.created_time, before.metadata.created_time);
  ASSERT_EQ(after.metadata.schema.size(), 2u);
  EXPECT_TRUE(read_commits(table, 3, 3).at(0).changes_metadata);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + scan_sql(after) + ") WHERE note IS NULL"), 2);

  Commit append(after);
  append.add(write_data_file(con, table, Metadata{}, "SELECT 9 AS id, 'new' AS note", widened.schema));
  append.publish();
  auto rows = con.scalar("SELECT string_agg(id || '=' || coalesce(note, '-'), ',' ORDER BY id) FROM (" +
                         scan_sql(load_snapshot(table)) + ")");
  EXPECT_EQ(rows.value_or(""), "1=-,3=-,9=new");
}

}  // namespace
}  // namespace lakestream::delta
