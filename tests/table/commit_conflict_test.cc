// Put-if-absent: of two writers that read the same version, the first to publish wins and the
// second learns it (CommitConflict) without touching what the first wrote; commit_with_retry
// makes racing writers all land, each commit once, and gives up with a clear error.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "support/error_of.h"
#include "support/test_support.h"
#include "table/commit_retry.h"
#include "table_fixtures.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

TEST(CommitConflict, SecondWriterOfTheSameVersionLosesAndLeavesTheWinnerIntact) {
  testing::TempDir dir;
  std::string table = dir / "t";
  sql::Database db;
  sql::Connection con(db);
  fixtures::create_ids_table(con, table, "1");

  Snapshot read = load_snapshot(table);
  Commit winner(read), loser(read);
  AddFile winner_file = fixtures::write_ids(con, table, "2");
  AddFile loser_file = fixtures::write_ids(con, table, "3");
  winner.add(winner_file);
  winner.set_txn("a", 0);
  loser.add(loser_file);
  loser.set_txn("b", 0);

  EXPECT_EQ(winner.publish(), 1);
  std::string committed = read_file(table + "/_delta_log/00000000000000000001.json");
  try {
    loser.publish();
    FAIL() << "the second publish of version 1 should have thrown CommitConflict";
  } catch (const lakestream::CommitConflict& e) {
    EXPECT_NE(std::string(e.what()).find("version 1"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_file(table + "/_delta_log/00000000000000000001.json"), committed);
  EXPECT_FALSE(path_exists(table + "/_delta_log/00000000000000000002.json"));

  Snapshot after = load_snapshot(table);
  EXPECT_EQ(after.version, 1);
  EXPECT_EQ(fixtures::scanned_ids(con, after), "1,2");
  EXPECT_EQ(after.txn_version("a"), 0);
  EXPECT_EQ(after.txn_version("b"), -1);
  // No temp files are left behind in the log by the losing attempt.
  EXPECT_EQ(list_dir(table + "/_delta_log").size(), 2u);
}

TEST(CommitConflict, TwoCreatorsOfOneTableCannotBothWin) {
  testing::TempDir dir;
  std::string table = dir / "t";
  Snapshot none = load_snapshot(table);
  Commit first(none), second(none);
  first.set_metadata(fixtures::ids_metadata());
  second.set_metadata(fixtures::orders_metadata());
  EXPECT_EQ(first.publish(), 0);
  EXPECT_THROW(second.publish(), lakestream::CommitConflict);
  EXPECT_EQ(load_snapshot(table).metadata.schema.size(), 1u);
}

// Four writers append 15 commits each to one table at once: every commit lands exactly once
// (its txn version in the log, its id in the rows), however often they collided.
class CommitWithRetry : public fixtures::TableTest {};

TEST_F(CommitWithRetry, RacingWritersAllLandEachCommitOnce) {
  fixtures::create_ids_table(con, table, "0");
  constexpr int kWriters = 4, kCommits = 15;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; w++) {
    writers.emplace_back([&, w] {
      sql::Connection own(db);  // one DuckDB connection per thread
      for (int c = 0; c < kCommits; c++) {
        int id = 1000 * (w + 1) + c;
        AddFile file = fixtures::write_ids(own, table, std::to_string(id));
        int attempts = 0;
        commit_with_retry("append " + std::to_string(id), [&] {
          attempts++;
          Commit commit(load_snapshot(table));
          commit.add(file);
          commit.set_txn("writer-" + std::to_string(w), c);
          return commit.publish();
        });
        conflicts += attempts - 1;
      }
    });
  }
  for (auto& writer : writers) writer.join();
  Snapshot after = load_snapshot(table);
  EXPECT_EQ(after.version, kWriters * kCommits);
  std::string expected = "0";
  std::set<int> ids;
  for (int w = 0; w < kWriters; w++) {
    EXPECT_EQ(after.txn_version("writer-" + std::to_string(w)), kCommits - 1);
    for (int c = 0; c < kCommits; c++) ids.insert(1000 * (w + 1) + c);
  }
  for (int id : ids) expected += "," + std::to_string(id);
  EXPECT_EQ(fixtures::scanned_ids(con, after), expected);
  EXPECT_GT(conflicts.load(), 0) << "the writers never collided: the test proved nothing about retries";
}

TEST_F(CommitWithRetry, GivesUpAfterItsAttemptsWithWhatItTried) {
  int attempts = 0;
  std::string error = testing::error_of([&] {
    commit_with_retry("append to table t", [&]() -> int64_t {
      attempts++;
      throw lakestream::CommitConflict("version 1 of t was committed by another writer");
    });
  });
  EXPECT_EQ(attempts, kCommitAttempts);
  EXPECT_EQ(error, "could not append to table t after 50 attempts: other writers keep committing to it");
  // Anything but a conflict is not retried.
  attempts = 0;
  EXPECT_THROW(commit_with_retry("x", [&]() -> int { attempts++; throw Error("disk full"); }), Error);
  EXPECT_EQ(attempts, 1);
}

}  // namespace
}  // namespace lakestream::delta
