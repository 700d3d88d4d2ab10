// plan_batches: how a backlog is cut into capped micro-batches (Spark's maxOffsetsPerTrigger).
#include "source/batch_plan.h"

#include <gtest/gtest.h>

namespace lakestream {
namespace {

int64_t batch_total(const std::vector<PartitionRange>& batch) {
  int64_t total = 0;
  for (const auto& r : batch) total += r.size();
  return total;
}

// Every offset of every backlog appears in exactly one batch, in order.
void expect_covers_exactly(const std::vector<std::vector<PartitionRange>>& batches,
                           const std::map<int32_t, int64_t>& start, const std::map<int32_t, int64_t>& end) {
  std::map<int32_t, int64_t> next = start;
  for (const auto& batch : batches) {
    for (const auto& r : batch) {
      EXPECT_EQ(r.start, next[r.partition]) << "partition " << r.partition << " has a gap or an overlap";
      EXPECT_GT(r.size(), 0) << "an empty range in a batch";
      next[r.partition] = r.end;
    }
  }
  for (const auto& [partition, stop] : end) {
    int64_t from = start.count(partition) ? start.at(partition) : 0;
    EXPECT_EQ(next[partition], std::max(stop, from)) << "partition " << partition << " not read to its end";
  }
}

TEST(PlanBatches, NoCapIsOneBatchOfEveryBacklog) {
  std::map<int32_t, int64_t> start{{0, 10}, {1, 0}, {2, 5}};
  std::map<int32_t, int64_t> end{{0, 110}, {1, 0}, {2, 6}};
  auto batches = plan_batches(start, end, 0);
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].size(), 2u);  // partition 1 has nothing to read
  EXPECT_EQ(batches[0][0].partition, 0);
  EXPECT_EQ(batches[0][0].start, 10);
  EXPECT_EQ(batches[0][0].end, 110);
  EXPECT_EQ(batches[0][1].partition, 2);
  EXPECT_EQ(batches[0][1].size(), 1);
}

TEST(PlanBatches, NothingToReadIsNoBatch) {
  EXPECT_TRUE(plan_batches({{0, 5}, {1, 7}}, {{0, 5}, {1, 7}}, 100).empty());
  EXPECT_TRUE(plan_batches({}, {}, 0).empty());
}

TEST(PlanBatches, SharesFollowTheBacklogAndFillTheCap) {
  // 900 + 100 records, 100 per batch: 1 each, then 98 split 899:99, so 89 + 1 and 9 + 1.
  std::map<int32_t, int64_t> start{{0, 0}, {1, 0}};
  std::map<int32_t, int64_t> end{{0, 900}, {1, 100}};
  auto batches = plan_batches(start, end, 100);
  ASSERT_EQ(batches.size(), 10u);
  EXPECT_EQ(batches[0][0].size() + batches[0][1].size(), 100);
  EXPECT_NEAR(static_cast<double>(batches[0][0].size()), 90.0, 1.0);
  EXPECT_NEAR(static_cast<double>(batches[0][1].size()), 10.0, 1.0);
  for (const auto& batch : batches) EXPECT_EQ(batch_total(batch), 100);
  expect_covers_exactly(batches, start, end);
}

TEST(PlanBatches, CapHoldsAndEveryBacklogProgressesEachBatch) {
  // A skewed backlog: the small partitions still move every batch, and no batch passes the cap.
  std::map<int32_t, int64_t> start{{0, 1000}, {1, 0}, {2, 0}, {3, 40}};
  std::map<int32_t, int64_t> end{{0, 101000}, {1, 3}, {2, 1}, {3, 47}};
  const int64_t cap = 10;
  auto batches = plan_batches(start, end, cap);
  std::map<int32_t, int64_t> left{{0, 100000}, {1, 3}, {2, 1}, {3, 7}};
  for (const auto& batch : batches) {
    EXPECT_LE(batch_total(batch), cap);
    EXPECT_GT(batch_total(batch), 0);
    std::map<int32_t, int64_t> in_batch;
    for (const auto& r : batch) in_batch[r.partition] = r.size();
    for (auto& [partition, n] : left) {
      if (n > 0) {
        EXPECT_GT(in_batch[partition], 0) << "partition " << partition << " starved";
      }
      n -= in_batch[partition];
    }
  }
  expect_covers_exactly(batches, start, end);
  // Full batches while the backlog lasts: 100011 records / 10 per batch.
  EXPECT_EQ(batches.size(), 10002u);
}

TEST(PlanBatches, MorePartitionsThanTheCapStillAllProgress) {
  std::map<int32_t, int64_t> start, end;
  for (int32_t p = 0; p < 5; p++) end[p] = 2;
  auto batches = plan_batches(start, end, 3);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].size(), 5u);  // one record each: the cap gives way to progress
  expect_covers_exactly(batches, start, end);
}

TEST(PlanBatches, SamePlanForSameInputs) {
  std::map<int32_t, int64_t> start{{0, 3}, {1, 7}, {2, 0}, {5, 11}};
  std::map<int32_t, int64_t> end{{0, 1003}, {1, 507}, {2, 333}, {5, 12}};
  auto first = plan_batches(start, end, 97);
  auto second = plan_batches(start, end, 97);
  ASSERT_EQ(first.size(), second.size());
  for (size_t i = 0; i < first.size(); i++) {
    ASSERT_EQ(first[i].size(), second[i].size());
    for (size_t j = 0; j < first[i].size(); j++) {
      EXPECT_EQ(first[i][j].partition, second[i][j].partition);
      EXPECT_EQ(first[i][j].start, second[i][j].start);
      EXPECT_EQ(first[i][j].end, second[i][j].end);
    }
  }
  expect_covers_exactly(first, start, end);
}

TEST(PlanBatches, HugeBacklogsDoNotOverflow) {
  // backlog x cap is about 2^81 here.
  const int64_t tera = int64_t{1} << 40;
  auto batches = plan_batches({{0, 0}, {1, 0}}, {{0, 3 * tera}, {1, tera}}, tera);
  ASSERT_EQ(batches.size(), 4u);
  EXPECT_EQ(batch_total(batches[0]), tera);
  EXPECT_NEAR(static_cast<double>(batches[0][0].size()) / static_cast<double>(batches[0][1].size()), 3.0, 1e-6);
}

}  // namespace
}  // namespace lakestream
