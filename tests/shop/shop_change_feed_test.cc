// The shop with the change data feed on silver and on the hours (`change_data_feed = true`, the
// hours in update mode so that a window is changed as its orders come): every change is in the
// feed, check replays both feeds to their tables, a recount's rewrite is in the feed too, and a
// crash at any commit step leaves the feed whole (nothing missing, nothing twice).
#include <csignal>

#include "shop/shop_scenario.h"
#include "support/crash_points.h"
#include "support/other_readers.h"

namespace lakestream::testing {
namespace {

std::string shop_with_change_feed() {
  std::string toml = shop_pipeline();
  auto replace = [&](const std::string& from, const std::string& to) {
    auto at = toml.find(from);
    EXPECT_NE(at, std::string::npos) << from << " is no longer in the shop pipeline";
    if (at != std::string::npos) toml.replace(at, from.size(), to);
  };
  replace("order_by = \"event_time\"\n", "order_by = \"event_time\"\nchange_data_feed = true\n");
  replace("output = \"append\"\n", "output = \"update\"\nchange_data_feed = true\n");
  return toml;
}

void expect_feeds_replay(PipelineFixture& f, const std::string& when) {
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << when << "\n" << check.out << check.err;
  for (const std::string table : {"orders", "hourly_sales"})
    EXPECT_NE(check.out.find("ok      " + table + "'s change data feed (versions 0-"), std::string::npos) << when << "\n" << check.out;
}

TEST(ShopChangeFeed, SilverAndTheHoursWriteTheirChangesAndCheckReplaysThem) {
  PipelineFixture f(shop_with_change_feed(), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  expect_feeds_replay(f, "after the scenario");
  // Order 1002 was placed, then shipped: silver's feed has the one change, before and after.
  EXPECT_EQ(f.query("select _change_type, status from read_parquet('lake/orders/_change_data/*.parquet') "
                    "where order_id = 1002 order by _change_type"),
            "_change_type,status\nupdate_postimage,shipped\nupdate_preimage,placed\n");
  // The recount puts the late order into 09:00: a change of that hour, before and after.
  ASSERT_EQ(f.lakestream("recount").exit_code, 0);
  EXPECT_EQ(f.query("select _change_type, orders, revenue from read_parquet('lake/hourly_sales/_change_data/*.parquet') "
                    "where strftime(hour, '%H:%M') = '09:00' and orders + 1 >= 4 order by _change_type"),
            "_change_type,orders,revenue\nupdate_postimage,4,90.50\nupdate_preimage,3,68.50\n");
  expect_feeds_replay(f, "after the recount");
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(ShopChangeFeed, ACrashAtEachCommitStepLeavesTheFeedWhole) {
  for (const std::string& point : {std::string("after_data_files"), std::string("before_delta_commit"),
                                   std::string("after_delta_commit"), std::string("after_sink_commit")}) {
    SCOPED_TRACE(point);
    PipelineFixture f(shop_with_change_feed(), {{"orders", 3}});
    bool crashed = false;
    play_shop(f, [&] {
      CommandResult r = f.lakestream("run", {}, {"LAKESTREAM_FAULT=" + point});
      crashed = crashed || r.signal == SIGKILL;
      run_ok(f);
    });
    EXPECT_TRUE(crashed) << "the point was never reached";
    expect_feeds_replay(f, "after crashes at " + point);
    expect_other_readers_accept(f.dir() + "/lake");
  }
}

}  // namespace
}  // namespace lakestream::testing
