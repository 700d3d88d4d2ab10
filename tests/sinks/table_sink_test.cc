// The sink's fence: a replayed batch already in its table is skipped, but a batch this run
// planned just now and found there was committed by another runner of the stream: refused.
#include <gtest/gtest.h>

#include "sinks/table_sink.h"
#include "support/test_support.h"
#include "table/delta_table.h"
#include "util/error.h"

namespace lakestream::testing {
namespace {

void nothing(delta::Commit&, const delta::Snapshot&) {}

TEST(TableSink, AReplayIsSkippedAndAFreshBatchFoundThereIsAnotherRunner) {
  TempDir dir;
  std::string table = dir / "gold";
  SinkCommit sink;
  sink.table = table;
  sink.schema = {{"n", "long", true}};
  sink.app_id = "stream-1";
  EXPECT_TRUE(commit_once(sink, nothing));
  EXPECT_EQ(delta::txn_version(table, "stream-1"), 0);

  sink.replay = true;
  EXPECT_FALSE(commit_once(sink, nothing)) << "a replay of a committed batch writes nothing";

  sink.replay = false;
  try {
    commit_once(sink, nothing);
    FAIL() << "a batch planned just now was found committed, and nothing was said";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("another runner of the same stream"), std::string::npos) << message;
    EXPECT_NE(message.find("Only one runner per stream"), std::string::npos) << message;
  }
  EXPECT_EQ(delta::latest_version(table), 0) << "the refused batch wrote nothing";

  sink.batch_id = 1;
  EXPECT_TRUE(commit_once(sink, nothing));
  EXPECT_EQ(delta::txn_version(table, "stream-1"), 1);
  // Another stream's txn does not fence this one.
  SinkCommit other;
  other.table = table;
  other.schema = {{"n", "long", true}};
  other.app_id = "stream-2";
  EXPECT_TRUE(commit_once(other, nothing));
}

}  // namespace
}  // namespace lakestream::testing
