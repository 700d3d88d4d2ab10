// The checkpoint's side of every kind's micro-batch loop (streams/micro_batches.h), on a real
// checkpoint: a plan is durable when plan() returns (a checkpoint opened afterwards has it); the
// newest plan is to be replayed exactly when the stream committed an older batch; ids follow on
// from the newest plan across runs; old plans are dropped down to the newest 100.
#include "streams/micro_batches.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

class MicroBatchesTest : public ::testing::Test {
 protected:
  MicroBatchesTest() {
    write_file_atomic(dir_ / "p.toml",
                      "[kafka]\nbootstrap = \"127.0.0.1:9\"\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n"
                      "[sources.orders]\ntopic = \"orders\"\n[sources.orders.schema]\nid = \"bigint\"\n"
                      "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n");
    pipeline_ = load_pipeline(dir_ / "p.toml");
  }
  const Stream& stream() { return *pipeline_.find_stream("read_orders"); }

  static KafkaInput reading(int64_t start, int64_t end) {
    KafkaInput input;
    input.partitions[0] = {start, end};
    return input;
  }

  TempDir dir_;
  Pipeline pipeline_;
};

TEST_F(MicroBatchesTest, APlanIsDurableAndTheNewestUncommittedOneIsReplayedAsPlanned) {
  {
    Checkpoint checkpoint(pipeline_, stream());
    MicroBatches batches(checkpoint, checkpoint.last_planned(), -1);
    EXPECT_EQ(batches.to_replay(), nullptr);
    EXPECT_FALSE(batches.last());
    EXPECT_EQ(batches.next_id(), 0);
    EXPECT_EQ(batches.plan(reading(0, 10)).id, 0);
    EXPECT_EQ(batches.plan(reading(10, 25)).id, 1);
    EXPECT_EQ(batches.next_id(), 2);
    EXPECT_EQ(batches.last()->id, 1);
  }
  // The run died after planning batch 1 and committing batch 0.
  Checkpoint checkpoint(pipeline_, stream());
  MicroBatches after_crash(checkpoint, checkpoint.last_planned(), 0);
  ASSERT_NE(after_crash.to_replay(), nullptr);
  EXPECT_EQ(after_crash.to_replay()->id, 1);
  EXPECT_EQ(after_crash.to_replay()->kafka().partitions.at(0).start, 10);
  EXPECT_EQ(after_crash.to_replay()->kafka().partitions.at(0).end, 25);
  EXPECT_EQ(after_crash.next_id(), 2);
  // Batch 1 committed: nothing to replay.
  MicroBatches committed(checkpoint, checkpoint.last_planned(), 1);
  EXPECT_EQ(committed.to_replay(), nullptr);
  EXPECT_EQ(committed.last()->id, 1);
}

TEST_F(MicroBatchesTest, OnlyTheNewest100PlansAreKept) {
  Checkpoint checkpoint(pipeline_, stream());
  MicroBatches batches(checkpoint, std::nullopt, -1);
  for (int64_t i = 0; i < 130; i++) batches.plan(reading(i, i + 1));
  batches.forget_old_plans();
  EXPECT_FALSE(checkpoint.planned(29));
  EXPECT_TRUE(checkpoint.planned(30));
  EXPECT_TRUE(checkpoint.planned(129));
  size_t plans = 0;
  for (const auto& entry : std::filesystem::directory_iterator(pipeline_.checkpoint_path("read_orders") + "/batches")) {
    (void)entry;
    plans++;
  }
  EXPECT_EQ(plans, static_cast<size_t>(MicroBatches::kPlansKept));
}

}  // namespace
}  // namespace lakestream::testing
