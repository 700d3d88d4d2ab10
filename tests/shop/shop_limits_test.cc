// Data-quality limits on the shop scenario: the late order of 09:00 is 25% of that hour's events,
// so a 10% limit on late events fails check, while a 30% limit and the quarantine and freshness
// limits pass; each limit says its line.
#include <gtest/gtest.h>

#include "shop_scenario.h"

namespace lakestream::testing {
namespace {

// The shop pipeline with `settings` added to the stream `stream`'s section.
std::string with_limits(std::string toml, const std::string& stream, const std::string& settings) {
  std::string header = "[streams." + stream + "]\n";
  auto at = toml.find(header);
  EXPECT_NE(at, std::string::npos) << header;
  toml.insert(at + header.size(), settings);
  return toml;
}

std::string limited_shop(const std::string& late_share) {
  std::string toml = with_limits(shop_pipeline(), "hourly_sales",
                                 "max_late_share = \"" + late_share + "\"\nmax_staleness = \"3 hours\"\n");
  toml = with_limits(toml, "read_orders", "max_quarantine_share = \"0.5%\"\n");
  return with_limits(toml, "latest_orders", "max_staleness = \"1 hour\"\n");
}

TEST(ShopLimits, LateShareOverTheLimitFailsCheckAndSaysWhichHour) {
  PipelineFixture f(limited_shop("10%"), {{"orders", 3}});
  play_shop(f, [&] { ASSERT_EQ(f.lakestream("run").exit_code, 0); });
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  EXPECT_NE(check.out.find("LIMIT   09:00 lost 25% of its events to the watermark (1 of 4); the limit is 10% "
                           "(streams.hourly_sales.max_late_share)\n"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("ok      bronze_orders_quarantine holds 0% of the records read (0 of 11); the limit is 0.5% "
                           "(streams.read_orders.max_quarantine_share)\n"),
            std::string::npos)
      << check.out;
  EXPECT_NE(check.out.find("ok      orders is 0 seconds behind bronze_orders's newest event; the limit is 1 hour"),
            std::string::npos)
      << check.out;
  // The newest event is at 13:xx, the newest written hour ends at 12:00.
  EXPECT_NE(check.out.find("hourly_sales is "), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
}

TEST(ShopLimits, WithinTheLimitsCheckPasses) {
  PipelineFixture f(limited_shop("30%"), {{"orders", 3}});
  play_shop(f, [&] { ASSERT_EQ(f.lakestream("run").exit_code, 0); });
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      hourly_sales: late events were at most 25% of any hour's (09:00); the limit is 30%"),
            std::string::npos)
      << check.out;
  EXPECT_EQ(check.out.find("LIMIT"), std::string::npos) << check.out;
}

TEST(ShopLimits, ALimitOfTheWrongKindOrFormIsRefusedWithItsLine) {
  PipelineFixture f(with_limits(shop_pipeline(), "read_orders", "max_late_share = \"1%\"\n"), {{"orders", 1}});
  CommandResult r = f.lakestream("check");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("streams.read_orders.max_late_share: is a setting of window streams, not of ingest streams"),
            std::string::npos)
      << r.err;
  f.write_pipeline(with_limits(shop_pipeline(), "hourly_sales", "max_late_share = \"1 percent\"\n"));
  r = f.lakestream("check");
  EXPECT_NE(r.err.find("streams.hourly_sales.max_late_share: '1 percent' is not a percentage"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lakestream::testing
