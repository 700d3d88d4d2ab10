// commitInfo.lakestream: every field survives encoding and decoding, the bytes earlier releases
// wrote decode to the same fields, and a commit that is not lakestream's has no record.
#include "table/commit_record.h"

#include <gtest/gtest.h>

namespace lakestream {
namespace {

TEST(CommitRecord, EveryFieldSurvivesARoundTrip) {
  CommitRecord ingest;
  ingest.stream = "read_orders";
  ingest.batch_id = 7;
  ingest.kafka = KafkaRead{"orders", {{0, {10, 20}}, {2, {5, 9}}}};
  ingest.data_loss = {{1, 40, 55, "aged out"}, {2, 9, std::nullopt, "partition gone"}};
  ingest.group = "shop-ingest";
  CommitRecord window;
  window.stream = "hourly_sales";
  window.batch_id = 3;
  window.watermark_us = 1790845200000000;
  window.source_version = 12;
  window.source_max_batch_id = 9;
  CommitRecord latest;
  latest.stream = "latest_orders";
  latest.batch_id = 0;
  latest.table = TableRead{"bronze_orders", 0, 4};
  CommitRecord recount;
  recount.recount = true;
  recount.source_max_batch_id = 11;
  for (const CommitRecord& r : {ingest, window, latest, recount}) {
    nlohmann::json info = commit_info_json(r);
    info["operation"] = "WRITE";  // the rest of commitInfo is not the record's
    auto back = commit_record_of(info);
    ASSERT_TRUE(back) << info.dump();
    EXPECT_TRUE(*back == r) << info.dump();
  }
}

// The JSON as the streams wrote it before the record had a type: tables written then still read.
TEST(CommitRecord, TheBytesOfEarlierReleasesDecode) {
  auto ingest = commit_record_of(nlohmann::json::parse(
      R"({"timestamp": 1, "lakestream": {"stream": "read_orders", "source": {"topic": "orders",
          "startOffsets": {"0": 3}, "endOffsets": {"0": 8}}, "dataLoss": [{"partition": 0, "readUpTo": 2,
          "continuedFrom": 3, "reason": "went back"}], "batchId": 4}})"));
  ASSERT_TRUE(ingest);
  EXPECT_EQ(ingest->stream, "read_orders");
  EXPECT_EQ(ingest->batch_id, 4);
  ASSERT_TRUE(ingest->kafka);
  EXPECT_EQ(ingest->kafka->ranges.at(0), (OffsetRange{3, 8}));
  ASSERT_EQ(ingest->data_loss.size(), 1u);
  EXPECT_EQ(ingest->data_loss[0].continued_from, 3);
  EXPECT_EQ(ingest->data_loss[0].reason, "went back");
  auto window = commit_record_of(nlohmann::json::parse(
      R"({"lakestream": {"stream": "hourly_sales", "batchId": 2, "watermark": 5, "sourceVersion": 6, "sourceMaxBatchId": -1}})"));
  ASSERT_TRUE(window);
  EXPECT_EQ(window->watermark_us, 5);
  EXPECT_EQ(window->source_version, 6);
  EXPECT_EQ(window->source_max_batch_id, -1);
  EXPECT_FALSE(window->kafka);
  EXPECT_FALSE(window->table);
}

TEST(CommitRecord, ACommitOfAnotherWriterHasNone) {
  EXPECT_FALSE(commit_record_of(nlohmann::json::object()));
  EXPECT_FALSE(commit_record_of(nlohmann::json::parse(R"({"operation": "WRITE", "engineInfo": "Apache-Spark/3.5.0"})")));
  EXPECT_FALSE(commit_record_of(nlohmann::json::parse(R"({"lakestream": "not an object"})")));
}

TEST(OffsetRanges, AreTheStartAndEndOffsetsTheRecordsSpell) {
  OffsetRanges ranges = offset_ranges({{0, 10}, {1, 4}}, {{0, 20}, {2, 7}});
  // Partition 1 has no end: it read nothing; partition 2 has no start: it read from 0.
  EXPECT_EQ(ranges, (OffsetRanges{{0, {10, 20}}, {1, {4, 4}}, {2, {0, 7}}}));
  EXPECT_EQ(ranges.at(0).size(), 10);
  EXPECT_EQ(start_offsets(ranges), (std::map<int32_t, int64_t>{{0, 10}, {1, 4}, {2, 0}}));
  EXPECT_EQ(end_offsets(ranges), (std::map<int32_t, int64_t>{{0, 20}, {1, 4}, {2, 7}}));
  EXPECT_EQ(offset_ranges(start_offsets(ranges), end_offsets(ranges)), ranges);
}

}  // namespace
}  // namespace lakestream
