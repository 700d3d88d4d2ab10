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
