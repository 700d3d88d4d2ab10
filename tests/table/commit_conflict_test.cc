// Put-if-absent: of two writers that read the same version, the first to publish wins and the
// second learns it (CommitConflict) without touching what the first wrote.
#include <gtest/gtest.h>

#include "support/test_support.h"
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

}  // namespace
}  // namespace lakestream::delta
