// check compares and prints each aggregate as its column's type: integers and decimals exactly,
// doubles within a relative tolerance (a sum of doubles depends on the order of its additions)
// and rounded to 12 significant digits.
#include "check/clicks_pipeline.h"

namespace lakestream::testing {
namespace {

std::string sales(const std::string& amount_type, const std::string& aggregates) {
  return clicks_pipeline("order_id = \"bigint\"\namount = \"" + amount_type + "\"\nts = \"timestamp\"\n",
                         "[streams.sales]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"sales\"\n"
                         "event_time = \"ts\"\nwatermark = \"0s\"\nwindow = \"1 hour\"\nwindow_column = \"hour\"\n\n"
                         "[streams.sales.aggregates]\n" + aggregates);
}

std::string order(int id, const std::string& amount, const std::string& hhmm) {
  return "{\"order_id\":" + std::to_string(id) + ",\"amount\":" + amount + ",\"ts\":\"2026-10-01T" + hhmm.substr(0, 2) +
         ":" + hhmm.substr(2, 2) + ":00Z\"}\n";
}

// "123.45" from a number of cents.
std::string cents_text(int64_t cents) {
  return std::to_string(cents / 100) + "." + (cents % 100 < 10 ? "0" : "") + std::to_string(cents % 100);
}

TEST(CheckTypedValues, DoublesCompareWithinTheToleranceAndPrintRounded) {
  PipelineFixture f(sales("double", "orders = \"count(*)\"\nrevenue = \"sum(amount)\"\nmean = \"avg(amount)\"\n"),
                    {{"clicks", 3}});
  std::string events;
  int64_t cents = 0;
  for (int i = 0; i < 50; i++) {
    int64_t c = 1000 + (i * 7919) % 90000;  // 10.00 to 909.99, two decimals as the data carries
    cents += c;
    events += order(i, cents_text(c), "0901");
  }
  send_and_run(f, events);
  send_and_run(f, order(99, "1.10", "1001"));
  std::string sum = cents_text(cents);
  char mean[32];
  std::snprintf(mean, sizeof mean, "%.12g", static_cast<double>(cents) / 5000);
  // The batch recount adds in whatever order its threads meet the rows: every call agrees.
  for (int call = 0; call < 4; call++) {
    CommandResult check = f.lakestream("check");
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    auto ok = lines_with(check.out, "ok");
    ASSERT_EQ(ok.size(), 2u) << check.out;
    EXPECT_EQ(ok[1], "ok      09:00 50 orders, revenue " + sum + ", mean " + mean) << check.out;
    EXPECT_EQ(ok[1].find("0000"), std::string::npos) << "no rounding residue: " << ok[1];
    EXPECT_TRUE(lines_with(check.out, "PROBLEM").empty()) << check.out;
  }
}

TEST(CheckTypedValues, ADecimalAverageComparesAsTheStreamWritesIt) {
  PipelineFixture f(sales("decimal(18,2)", "orders = \"count(*)\"\nmean = \"avg(amount)\"\n"), {{"clicks", 1}});
  send_and_run(f, order(1, "10.00", "0901") + order(2, "10.00", "0902") + order(3, "10.01", "0903"));
  send_and_run(f, order(4, "5.00", "1001"));
  expect_check(f,
               "ok      bronze_clicks has 4 events, each offset once\n"
               "ok      09:00 3 orders, mean 10.003333\n"
               "waiting 10:00 is not written yet: the watermark has not passed its end\n");
  expect_recount_changes_nothing(f);
}

TEST(CheckTypedValues, ADecimalAverageRoundsHalfUpExactly) {
  PipelineFixture f(sales("decimal(18,2)", "orders = \"count(*)\"\nmean = \"avg(amount)\"\n"), {{"clicks", 2}});
  // 2.05 over 32 orders is 0.0640625: Spark's decimal(22,6) rounds it half up to 0.064063 (through
  // a double it would be 0.064062); -0.03 over 32 is -0.0009375, away from zero -0.000938.
  std::string events = order(0, "2.05", "0900") + order(100, "-0.03", "1000");
  for (int i = 1; i < 32; i++) events += order(i, "0.00", "0901") + order(100 + i, "0.00", "1001");
  send_and_run(f, events);
  send_and_run(f, order(999, "1.00", "1101"));
  EXPECT_EQ(f.query("select mean from sales order by hour"), "mean\n0.064063\n-0.000938\n");
  expect_check(f,
               "ok      bronze_clicks has 65 events, each offset once\n"
               "ok      09:00 32 orders, mean 0.064063\n"
               "ok      10:00 32 orders, mean -0.000938\n"
               "waiting 11:00 is not written yet: the watermark has not passed its end\n");
}

TEST(CheckTypedValues, IntegersWithNullsCompareExactly) {
  PipelineFixture f(sales("bigint", "orders = \"count(amount)\"\ntotal = \"sum(amount)\"\nmean = \"avg(amount)\"\n"
                                    "low = \"min(amount)\"\nhigh = \"max(amount)\"\n"),
                    {{"clicks", 2}});
  send_and_run(f, order(1, "7", "0901") + order(2, "null", "0902") + order(3, "9000000000000", "0903") +
                      order(4, "null", "1001") + order(5, "-2", "1002"));
  send_and_run(f, order(6, "null", "1101"));
  expect_check(f,
               "ok      bronze_clicks has 6 events, each offset once\n"
               "ok      09:00 2 orders, total 9000000000007, mean 4500000000003.5, low 7, high 9000000000000\n"
               "ok      10:00 1 order, total -2, mean -2, low -2, high -2\n"
               "waiting 11:00 is not written yet: the watermark has not passed its end\n");
}

}  // namespace
}  // namespace lakestream::testing
