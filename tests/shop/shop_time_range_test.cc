// check and recount told a time range: only the windows in it, from only the files that can
// hold them; the rest of the lake is neither reported nor rewritten.
#include <gtest/gtest.h>

#include "shop_scenario.h"

namespace lakestream::testing {
namespace {

TEST(ShopTimeRange, CheckReportsOnlyTheWindowsInTheRange) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { ASSERT_EQ(f.lakestream("run").exit_code, 0); });
  CommandResult check = f.lakestream("check", {"--since", "2026-10-01 10:00", "--until", "2026-10-01 11:00"});
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out,
            "ok      bronze_orders has 3 events, each offset once\n"
            "note    orders is not checked for a time range: the newest state of each order needs all of bronze_orders; "
            "run check without --since/--until for it\n"
            "ok      10:00 2 orders, 55.00\n");

  CommandResult bad = f.lakestream("check", {"--since", "yesterday"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("--since 'yesterday' is not a time; write e.g. 2026-03-02"), std::string::npos) << bad.err;
}

TEST(ShopTimeRange, RecountOfARangeRewritesOnlyItsWindows) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { ASSERT_EQ(f.lakestream("run").exit_code, 0); });
  CommandResult later = f.lakestream("recount", {"--since", "2026-10-01 10:00"});
  ASSERT_EQ(later.exit_code, 0) << later.err;
  EXPECT_EQ(later.out, "recount: every written window already equals the recount; nothing changed\n");

  CommandResult nine = f.lakestream("recount", {"--since", "2026-10-01 09:30", "--until", "2026-10-01 09:45"});
  ASSERT_EQ(nine.exit_code, 0) << nine.err;
  // The range is widened to the whole hour it touches.
  EXPECT_EQ(nine.out, "recount: hourly_sales 2026-10-01 09:00: 3 orders, 68.50 -> 4 orders, 90.50\n");
  EXPECT_EQ(f.lakestream("check").out, expected_check("expected-check-after-recount.txt"));
}

}  // namespace
}  // namespace lakestream::testing
