// The progress log read from its end: the newest records, oldest first, across the rotated file
// and the current one, the same as reading both files line by line from the start, for every
// limit, with records larger than a read block, empty lines and a line cut by a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "checkpoint/progress_log.h"
#include "support/test_support.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

// The reference: both files from the start, a line at a time.
std::vector<nlohmann::json> every_record(const ProgressLog& log) {
  std::vector<nlohmann::json> records;
  for (const std::string& file : {log.rotated_path(), log.path()}) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      auto record = nlohmann::json::parse(line, nullptr, false);
      if (!record.is_discarded() && record.is_object()) records.push_back(record);
    }
  }
  return records;
}

TEST(ProgressLog, TheNewestRecordsReadFromTheEndAreTheLogsOwn) {
  for (unsigned seed = 1; seed <= 6; seed++) {
    TempDir dir;
    std::mt19937 random(seed);
    ProgressLog log(dir.path(), 300 << 10);  // rotates every 300 KiB
    int records = std::uniform_int_distribution<int>(0, 400)(random);
    for (int i = 0; i < records; i++) {
      // Mostly small, some larger than the 64 KiB read block.
      size_t size = random() % 10 == 0 ? 70000 + random() % 70000 : random() % 600;
      log.append({{"batchId", i}, {"pad", std::string(size, 'x')}});
      if (random() % 25 == 0) append_to_file(log.path(), "\n", 0600);
    }
    if (seed % 2 == 0) append_to_file(log.path(), "{\"batchId\": 999, \"cut by a cr", 0600);
    std::vector<nlohmann::json> all = every_record(log);
    for (size_t limit : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{50}, all.size(), all.size() + 3, SIZE_MAX}) {
      std::vector<nlohmann::json> newest = log.read(limit);
      size_t expected = std::min(limit, all.size());
      ASSERT_EQ(newest.size(), expected) << "seed " << seed << " limit " << limit;
      for (size_t i = 0; i < expected; i++)
        ASSERT_EQ(newest[i], all[all.size() - expected + i]) << "seed " << seed << " limit " << limit << " record " << i;
    }
  }
}

}  // namespace
}  // namespace lakestream::testing
