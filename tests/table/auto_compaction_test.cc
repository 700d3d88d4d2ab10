// Auto compaction's plan (table/compaction.h), over generated tables: what it merges and the
// bound it keeps. A simulated stream adds small files of random sizes to random partitions and
// merges whatever is due after each one; the properties are checked against the files themselves,
// not against the planner's own tiers.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <set>

#include "table/compaction.h"

namespace lakestream::delta {
namespace {

AddFile file_of(int64_t id, const std::string& partition, int64_t size) {
  AddFile file;
  file.path = "part-" + std::to_string(id) + ".parquet";
  file.partition_values["dt"] = partition;
  file.size = size;
  return file;
}

std::string partition_of(const AddFile& file) { return file.partition_values.at("dt").value_or("null"); }

TEST(AutoCompaction, MergesOnlyAFullTierOfOnePartitionAndKeepsEveryGroupUnderTheTarget) {
  AutoCompaction settings{1 << 20, 4};  // 1 MiB target; tiers [256K,1M), [64K,256K), [16K,64K), ...
  Snapshot snapshot;
  int64_t id = 0;
  // Partition a: 4 files of ~20 KiB (one tier, full), 3 of ~100 KiB (not full), 1 big one.
  for (int i = 0; i < 4; i++) snapshot.files.push_back(file_of(id++, "a", 20000 + i));
  for (int i = 0; i < 3; i++) snapshot.files.push_back(file_of(id++, "a", 100000 + i));
  snapshot.files.push_back(file_of(id++, "a", 2 << 20));
  // Partition b: 3 files of ~20 KiB: not full.
  for (int i = 0; i < 3; i++) snapshot.files.push_back(file_of(id++, "b", 20000 + i));
  auto groups = due_compactions(snapshot, settings);
  ASSERT_EQ(groups.size(), 1u);
  ASSERT_EQ(groups[0].size(), 4u);
  for (const auto& file : groups[0]) {
    EXPECT_EQ(partition_of(file), "a");
    EXPECT_LT(file.size, 30000);
  }
}

TEST(AutoCompaction, TheSmallAndTheLargeGroupsSplitWhatIsDueBetweenThem) {
  // A latest stream merges the small groups between its batches and the compaction thread the
  // large ones: every due group goes to exactly one, split at kSmallGroupBytes in all.
  std::mt19937_64 random(22);
  size_t small_groups = 0, large_groups = 0;
  for (int round = 0; round < 50; round++) {
    AutoCompaction settings{256LL << 20, 2 + static_cast<int64_t>(random() % 9)};
    Snapshot snapshot;
    for (int64_t id = 0; id < 400; id++) {
      int64_t size = static_cast<int64_t>(std::exp2(10 + static_cast<double>(random() % 17000) / 1000));  // 1 KiB to 128 MiB
      snapshot.files.push_back(file_of(id, "p" + std::to_string(random() % 3), size));
    }
    auto all = due_compactions(snapshot, settings);
    auto small = groups_taken(all, GroupsTaken::Small), large = groups_taken(all, GroupsTaken::Large);
    EXPECT_EQ(groups_taken(all, GroupsTaken::All).size(), all.size());
    EXPECT_EQ(small.size() + large.size(), all.size());
    small_groups += small.size();
    large_groups += large.size();
    std::set<std::string> seen;
    for (const auto* part : {&small, &large})
      for (const auto& group : *part) {
        int64_t bytes = 0;
        for (const auto& file : group) {
          bytes += file.size;
          EXPECT_TRUE(seen.insert(file.path).second) << file.path << " in two groups";
        }
        EXPECT_EQ(bytes < kSmallGroupBytes, part == &small) << bytes;
      }
  }
  EXPECT_GT(small_groups, 0u);
  EXPECT_GT(large_groups, 0u);
}

TEST(AutoCompaction, TheTablesPropertiesTurnItOffOrSetTheTarget) {
  AutoCompaction pipeline{128 << 20, 10};
  EXPECT_FALSE(table_auto_compaction({{"delta.autoOptimize.autoCompact", "false"}}, pipeline).has_value());
  EXPECT_FALSE(table_auto_compaction({{"delta.autoOptimize.autoCompact", "FALSE"}}, pipeline).has_value());
  EXPECT_EQ(table_auto_compaction({{"delta.autoOptimize.autoCompact", "auto"}}, pipeline)->target_bytes, 128 << 20);
  EXPECT_EQ(table_auto_compaction({{"delta.targetFileSize", "33554432"}}, pipeline)->target_bytes, 32 << 20);
  EXPECT_EQ(table_auto_compaction({{"delta.targetFileSize", "64mb"}}, pipeline)->target_bytes, 64 << 20);
  EXPECT_EQ(table_auto_compaction({{"delta.targetFileSize", "nonsense"}}, pipeline)->target_bytes, 128 << 20);
}

// A stream of random small files, compacted whenever due (a merged file is 90% of its inputs, as
// Parquet's shared footer and better compression make it). Checked after every step:
// - every group lies in one partition, holds 2+ files, and stays within the target;
// - once nothing is due, a partition's small files (under half the target) are at most
//   (min_files - 1) x the tiers (factors of min_files) between its smallest file and the target;
// - each byte written by the stream is rewritten a bounded number of times (the tiers), not at
//   every compaction.
TEST(AutoCompaction, GeneratedStreamsKeepABoundedNumberOfSmallFilesAndRewriteEachByteAFewTimes) {
  for (unsigned seed = 1; seed <= 40; seed++) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    AutoCompaction settings{int64_t{1} << (20 + rng() % 8), static_cast<int64_t>(2 + rng() % 12)};
    const int partitions = 1 + static_cast<int>(rng() % 4);
    std::lognormal_distribution<double> batch_bytes(std::log(2000.0 + static_cast<double>(rng() % 50000)), 0.8);
    Snapshot snapshot;
    int64_t id = 0, written = 0, rewritten = 0;
    for (int step = 0; step < 3000; step++) {
      int64_t size = std::max<int64_t>(100, static_cast<int64_t>(batch_bytes(rng)));
      snapshot.files.push_back(file_of(id++, "p" + std::to_string(rng() % partitions), size));
      written += size;
      for (;;) {
        auto groups = due_compactions(snapshot, settings);
        if (groups.empty()) break;
        std::set<std::string> merged;
        for (const auto& group : groups) {
          ASSERT_GE(group.size(), 2u);
          int64_t bytes = 0;
          for (const auto& file : group) {
            EXPECT_EQ(partition_of(file), partition_of(group.front()));
            EXPECT_TRUE(merged.insert(file.path).second) << file.path << " is in two groups";
            bytes += file.size;
          }
          EXPECT_LE(bytes, settings.target_bytes);
          rewritten += bytes;
          snapshot.files.push_back(file_of(id++, partition_of(group.front()), bytes * 9 / 10));
        }
        std::erase_if(snapshot.files, [&](const AddFile& f) { return merged.count(f.path) > 0; });
      }
      // Nothing due: a partition's small files are (min_files - 1) per tier at most.
      std::map<std::string, std::vector<int64_t>> sizes;
      for (const auto& file : snapshot.files)
        if (file.size < settings.target_bytes / 2) sizes[partition_of(file)].push_back(file.size);
      for (auto& [partition, list] : sizes) {
        std::sort(list.begin(), list.end());
        // (min_files - 1) per tier, over the tiers from the smallest file up to the target.
        double tiers = std::ceil(std::log(static_cast<double>(settings.target_bytes) / static_cast<double>(list.front())) /
                                 std::log(static_cast<double>(settings.min_files))) + 1;
        EXPECT_LE(static_cast<double>(list.size()), static_cast<double>(settings.min_files - 1) * tiers)
            << partition << " target " << settings.target_bytes << " min_files " << settings.min_files;
      }
    }
    double tiers = std::log(static_cast<double>(settings.target_bytes) / 100.0) / std::log(static_cast<double>(settings.min_files)) + 2;
    RecordProperty("rewritten_per_written_seed_" + std::to_string(seed), std::to_string(static_cast<double>(rewritten) / static_cast<double>(written)));
    EXPECT_LE(static_cast<double>(rewritten), tiers * static_cast<double>(written))
        << "each byte is rewritten about once per tier; rewritten/written = "
        << static_cast<double>(rewritten) / static_cast<double>(written) << ", tiers " << tiers;
  }
}

}  // namespace
}  // namespace lakestream::delta
