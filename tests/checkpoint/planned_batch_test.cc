// The planned-batch record: what checkpoints written by earlier releases hold must still be read,
// and what is written now must be byte for byte what they hold.
#include <gtest/gtest.h>

#include "checkpoint/checkpoint.h"
#include "checkpoint/planned_batch.h"
#include "support/test_support.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

// Records as the releases before the typed record wrote them (one line each).
const std::string kIngest = R"({"end":{"0":7,"1":12},"start":{"0":3,"1":12}})" "\n";
const std::string kIngestAfterLoss =
    R"({"dataLoss":[{"continuedFrom":40,"partition":0,"readUpTo":25,"reason":"aged out"},)"
    R"({"partition":2,"readUpTo":9,"reason":"partition gone"}],"end":{"0":44},"start":{"0":40}})" "\n";
const std::string kTable = R"({"from":3,"to":5})" "\n";
const std::string kNoData = R"({"from":6,"noData":true,"to":5})" "\n";

TEST(PlannedBatch, AnIngestRecordReadsAsOffsetRangesPerPartition) {
  PlannedBatch batch = decode_planned_batch(4, kIngest, "batches/4.json");
  EXPECT_EQ(batch.id, 4);
  const KafkaInput& input = batch.kafka();
  ASSERT_EQ(input.partitions.size(), 2u);
  EXPECT_EQ(input.partitions.at(0).start, 3);
  EXPECT_EQ(input.partitions.at(0).end, 7);
  EXPECT_EQ(input.partitions.at(1).start, 12);
  EXPECT_EQ(input.partitions.at(1).end, 12);
  EXPECT_TRUE(input.data_loss.empty());
  EXPECT_EQ(encode_planned_batch(batch), kIngest);
}

TEST(PlannedBatch, DataLossSurvivesTheRoundTrip) {
  PlannedBatch batch = decode_planned_batch(9, kIngestAfterLoss, "batches/9.json");
  const auto& gaps = batch.kafka().data_loss;
  ASSERT_EQ(gaps.size(), 2u);
  EXPECT_EQ(gaps[0].partition, 0);
  EXPECT_EQ(gaps[0].read_up_to, 25);
  EXPECT_EQ(gaps[0].continued_from, 40);
  EXPECT_EQ(gaps[0].reason, "aged out");
  EXPECT_EQ(gaps[1].partition, 2);
  EXPECT_FALSE(gaps[1].continued_from.has_value());
  EXPECT_EQ(encode_planned_batch(batch), kIngestAfterLoss);
  // The bronze commit records the same shape.
  EXPECT_EQ(data_loss_json(gaps).dump(), nlohmann::json::parse(kIngestAfterLoss)["dataLoss"].dump());
}

TEST(PlannedBatch, ATableRecordReadsAsVersions) {
  PlannedBatch batch = decode_planned_batch(2, kTable, "batches/2.json");
  EXPECT_EQ(batch.table().from, 3);
  EXPECT_EQ(batch.table().to, 5);
  EXPECT_FALSE(batch.table().no_data);
  EXPECT_EQ(encode_planned_batch(batch), kTable);

  PlannedBatch no_data = decode_planned_batch(3, kNoData, "batches/3.json");
  EXPECT_TRUE(no_data.table().no_data);
  EXPECT_EQ(no_data.table().to, 5);
  EXPECT_EQ(encode_planned_batch(no_data), kNoData);
}

TEST(PlannedBatch, AKinesisRecordKeepsEachShardsRangeAndPosition) {
  // Sequence numbers longer than any integer type: kept as the decimal text they are.
  const std::string kKinesis =
      R"({"dataLoss":[{"continuedFrom":4,"partition":1,"readUpTo":4,"reason":"recreated"}],"kinesis":{)"
      R"("shardId-000000000000":{"end":9,"finished":true,"first":"49680833382304212116591673116957954054308071505112596482",)"
      R"("last":"49680833382304212116591673116957954054308071505112596999","position":)"
      R"("49680833382304212116591673116957954054308071505112596999","start":7},)"
      R"("shardId-000000000001":{"end":4,"fromMs":1790845500000,"start":4}}})" "\n";
  PlannedBatch batch = decode_planned_batch(5, kKinesis, "batches/5.json");
  const KinesisInput& input = batch.kinesis();
  ASSERT_EQ(input.shards.size(), 2u);
  const ShardRead& read = input.shards.at("shardId-000000000000");
  EXPECT_EQ(read.start, 7);
  EXPECT_EQ(read.end, 9);
  EXPECT_TRUE(read.reads());
  EXPECT_EQ(read.first, "49680833382304212116591673116957954054308071505112596482");
  EXPECT_EQ(read.position, read.last);
  EXPECT_TRUE(read.finished);
  const ShardRead& idle = input.shards.at("shardId-000000000001");
  EXPECT_FALSE(idle.reads());
  EXPECT_EQ(idle.from_ms, 1790845500000);
  ASSERT_EQ(input.data_loss.size(), 1u);
  EXPECT_EQ(input.data_loss[0].reason, "recreated");
  EXPECT_EQ(encode_planned_batch(batch), kKinesis);
  // A Kafka stream handed a Kinesis plan (or the reverse) is told the checkpoint is not its own.
  EXPECT_THROW(batch.kafka(), Error);
  EXPECT_THROW(decode_planned_batch(0, kIngest, "batches/0.json").kinesis(), Error);
  // A range that does not add up is damage, not a plan.
  EXPECT_THROW(decode_planned_batch(5, R"({"kinesis":{"shardId-000000000000":{"start":3,"end":5}}})", "b/5.json"), Error);
}

TEST(PlannedBatch, AWrongOrDamagedRecordIsAnErrorThatSaysWhatToDo) {
  PlannedBatch table = decode_planned_batch(2, kTable, "batches/2.json");
  try {
    table.kafka();
    FAIL() << "a table record read as Kafka offsets";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("planned batch 2 is damaged"), std::string::npos) << e.what();
  }
  for (const std::string& text : {std::string("{\"from\":"), std::string("{\"end\":{\"x\":1},\"start\":{}}"),
                                  std::string("{\"to\":1}")}) {
    try {
      decode_planned_batch(7, text, "cp/batches/7.json");
      FAIL() << "accepted " << text;
    } catch (const Error& e) {
      std::string message = e.what();
      EXPECT_NE(message.find("cp/batches/7.json"), std::string::npos) << message;
      EXPECT_NE(message.find("start the stream over"), std::string::npos) << message;
    }
  }
}

TEST(PlannedBatch, ARecordOnDiskIsReadTyped) {
  TempDir dir;
  make_dirs(dir / "batches", 0700);
  write_file_atomic(dir / "batches/0.json", kIngestAfterLoss, 0600);
  auto batch = read_planned_batch(dir.path(), 0);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->kafka().end_offsets().at(0), 44);
  EXPECT_FALSE(read_planned_batch(dir.path(), 1).has_value());
}

}  // namespace
}  // namespace lakestream::testing
