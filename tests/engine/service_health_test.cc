// /readyz's verdicts, on a clock the test moves: a stream is ready only when its last run ended
// well and recently, or it is in a run that started recently.
#include <gtest/gtest.h>

#include "engine/service_health.h"

namespace lakestream::testing {
namespace {

using std::chrono::seconds;

TEST(ServiceHealth, ReadyOnlyWhenEveryStreamRanWellWithinTheExpectedGap) {
  ServiceHealth health({"read_orders", "hourly_sales"}, seconds(60));
  auto t0 = ServiceHealth::Clock::time_point{} + std::chrono::hours(1);
  Readiness r = health.readiness(t0);
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.text, "not ok  read_orders: has not run yet\nnot ok  hourly_sales: has not run yet\n");

  health.run_started({"read_orders"}, t0);
  health.run_ended({"read_orders"}, std::nullopt, t0 + seconds(1));
  health.run_started({"hourly_sales"}, t0);
  r = health.readiness(t0 + seconds(2));
  EXPECT_TRUE(r.ready) << r.text;
  EXPECT_EQ(r.text, "ok      read_orders: last run ended 1.0 s ago\nok      hourly_sales: in a run that started 2.0 s ago\n");

  // A run longer than the gap, and a last run too long ago, are not ready.
  r = health.readiness(t0 + seconds(90));
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.text, "not ok  read_orders: last run ended 89.0 s ago, longer than expected\n"
                    "not ok  hourly_sales: in a run that started 90.0 s ago, longer than expected\n");

  // A failure is not ready until a run ends well again; its first line is shown.
  health.run_ended({"hourly_sales"}, std::string("topic orders went back: ...\n  partition 0: ..."), t0 + seconds(91));
  health.run_started({"read_orders"}, t0 + seconds(91));
  r = health.readiness(t0 + seconds(92));
  EXPECT_FALSE(r.ready);
  EXPECT_EQ(r.text, "ok      read_orders: in a run that started 1.0 s ago\n"
                    "not ok  hourly_sales: failing: topic orders went back: ...\n");
  health.run_started({"hourly_sales"}, t0 + seconds(93));
  health.run_ended({"hourly_sales"}, std::nullopt, t0 + seconds(94));
  EXPECT_TRUE(health.readiness(t0 + seconds(95)).ready);
}

TEST(ServiceHealth, TheExpectedGapIsThreeIntervalsAndAtLeastAMinute) {
  EXPECT_EQ(expected_run_gap(std::chrono::microseconds(0)), std::chrono::minutes(1));
  EXPECT_EQ(expected_run_gap(std::chrono::seconds(30)), std::chrono::seconds(90));
  EXPECT_EQ(expected_run_gap(std::chrono::minutes(5)), std::chrono::minutes(15));
}

}  // namespace
}  // namespace lakestream::testing
