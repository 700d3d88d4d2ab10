// A replayed ingest batch must read the records its plan saw (streams/topic_positions.h): the
// same last record in every partition it read, or the run is refused with what to do.
#include "streams/topic_positions.h"

#include <gtest/gtest.h>

#include "support/test_support.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

class TopicPositionsTest : public ::testing::Test {
 protected:
  TopicPositionsTest() {
    write_file_atomic(dir_ / "p.toml",
                      "[kafka]\nbootstrap = \"127.0.0.1:9\"\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n"
                      "[sources.orders]\ntopic = \"orders\"\n[sources.orders.schema]\nid = \"bigint\"\n"
                      "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n");
    pipeline_ = load_pipeline(dir_ / "p.toml");
  }
  TopicPositions positions() {
    return TopicPositions(pipeline_, *pipeline_.find_stream("read_orders"), *pipeline_.find_source("orders"));
  }

  TempDir dir_;
  Pipeline pipeline_;
};

KafkaInput planned() {
  KafkaInput input;
  input.partitions[0] = {10, 20};
  input.partitions[1] = {5, 5};  // nothing read there
  input.last_read[0] = {19, 1700000000000, "aaaa"};
  input.last_read[1] = {4, 1700000000000, "bbbb"};  // from an earlier batch
  return input;
}

TEST_F(TopicPositionsTest, AReplayThatReadsThePlannedRecordsGoesOn) {
  std::map<int32_t, LastRead> read_now = {{0, {19, 1700000000000, "aaaa"}}};
  EXPECT_NO_THROW(positions().refuse_if_replay_differs(3, read_now, planned()));
}

TEST_F(TopicPositionsTest, AReplayThatReadsOtherRecordsIsRefusedNamingThePartition) {
  std::map<int32_t, LastRead> other = {{0, {19, 1700000000000, "cccc"}}};
  try {
    positions().refuse_if_replay_differs(3, other, planned());
    FAIL() << "a replay reading other records went on";
  } catch (const Error& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("planned batch 3"), std::string::npos) << text;
    EXPECT_NE(text.find("partition 0, offset 19"), std::string::npos) << text;
    EXPECT_NE(text.find("fingerprint cccc"), std::string::npos) << text;
    EXPECT_EQ(text.find("partition 1"), std::string::npos) << text;  // nothing was read there
    EXPECT_NE(text.find("delete " + pipeline_.checkpoint_path("read_orders")), std::string::npos) << text;
  }
  // Nothing at the offset any more (the topic is shorter now).
  EXPECT_THROW(positions().refuse_if_replay_differs(3, {}, planned()), Error);
}

}  // namespace
}  // namespace lakestream::testing
