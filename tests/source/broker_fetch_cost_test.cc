// The embedded broker's cost at the tail does not grow with the log (packaging/librdkafka/): the
// same run of `lakestream broker bench` with a short partition (10,000 records in batches of 20:
// 500 batches) and a long one (1,000,000: 50,000 batches). With the mock's old walk over the
// batches on each Fetch the same run measured 7.3x the broker's CPU on the long side (latency p50
// 3.3x); with the index 1.06x (1.30x). The bound is 3, not the bench's own 1.5 (which it meets with
// 10,000,000 records, docs/operating.md): loose for a machine shared with other work, and the test
// stays under half a minute.
#include <gtest/gtest.h>

#include <regex>

#include "support/test_support.h"

namespace lakestream {
namespace {

using testing::run_lakestream;
using testing::TempDir;

TEST(BrokerFetchCost, TheTailCostsTheSameWithALongLog) {
  TempDir dir;
  auto result = run_lakestream({"broker", "bench", "--short", "10000", "--long", "1000000", "--batch-records", "20",
                                "--rounds", "9", "--round-records", "5000", "--dir", dir / "bench"},
                               dir.path());
  ASSERT_TRUE(result.exit_code == 0 || result.exit_code == 1) << result.err;
  std::smatch ratios;
  ASSERT_TRUE(std::regex_search(result.out, ratios,
                                std::regex(R"(long / short: broker CPU ([0-9.]+)x, latency p50 ([0-9.]+)x)")))
      << result.out << result.err;
  EXPECT_LT(std::stod(ratios[1]), 3.0) << result.out;
  EXPECT_LT(std::stod(ratios[2]), 3.0) << result.out;
}

}  // namespace
}  // namespace lakestream
