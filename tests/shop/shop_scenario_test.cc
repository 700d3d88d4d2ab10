// The shop scenario end to end: events in, the three tables and check's lines out, exactly as
// tests/data/shop says, also when every run is killed at a random moment.
#include <random>

#include "shop/shop_scenario.h"
#include "support/crash_points.h"
#include "support/other_readers.h"

namespace lakestream::testing {
namespace {

TEST(ShopScenario, CheckPrintsTheExpectedLines) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 0);
}

TEST(ShopScenario, SilverAndGoldHoldTheRowsTheScenarioImplies) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  expect_shop_silver_and_gold(f);
  // Bronze: every event as Kafka holds it, the resent one included.
  EXPECT_EQ(f.query("select count(*) as events, count(distinct (partition, \"offset\")) as offsets, "
                    "count(distinct order_id) as orders from bronze_orders"),
            "events,offsets,orders\n11,11,9\n");
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(ShopScenario, WithoutDedupCheckCatchesTheDoubleCount) {
  PipelineFixture f(shop_pipeline(/*dedup=*/false), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check-without-dedup.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 1);
  // --examples names the records behind the PROBLEM: the two copies of order 1005, counted both.
  std::string copies = f.query("select string_agg(\"partition\" || ':' || \"offset\", ', ' order by \"partition\", \"offset\") "
                               "as c from bronze_orders where order_id = 1005");
  copies = copies.substr(copies.find('\n') + 1);
  copies = copies.substr(0, copies.find('\n'));
  if (copies.front() == '"') copies = copies.substr(1, copies.size() - 2);
  CommandResult examples = f.lakestream("check", {"--examples"});
  EXPECT_NE(examples.out.find("an event counted twice\n        e.g. records " + copies + "; lakestream why --window 'hourly_sales 2026-10-01 11:00' lists them all\n"),
            std::string::npos)
      << examples.out;
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(ShopScenario, RecountCorrectsTheWrittenHoursOnce) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  expect_recount_corrects_nine_oclock(f);
  // A second recount finds nothing to change and writes no commit.
  std::string versions = f.query("select count(*) from hourly_sales");
  CommandResult again = f.lakestream("recount");
  EXPECT_EQ(again.out, "recount: every written window already equals the recount; nothing changed\n");
  EXPECT_EQ(f.query("select count(*) from hourly_sales"), versions);
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(ShopScenario, ARunWithNothingNewWritesNoCommit) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  auto log_files = [&](const std::string& table) { return list_dir_count(f.dir() + "/lake/" + table + "/_delta_log"); };
  int bronze = log_files("bronze_orders"), silver = log_files("orders"), gold = log_files("hourly_sales");
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("read_orders: nothing new"), std::string::npos) << r.out;
  EXPECT_EQ(log_files("bronze_orders"), bronze);
  EXPECT_EQ(log_files("orders"), silver);
  EXPECT_EQ(log_files("hourly_sales"), gold);
  // Nor loads DuckDB: finding that nothing is new takes Kafka's watermarks and the tables' logs
  // only. The dynamic loader lists every library it opens.
  CommandResult traced = f.lakestream("run", {}, {"LD_DEBUG=files"});
  ASSERT_EQ(traced.exit_code, 0) << traced.err;
  EXPECT_NE(traced.err.find("file=libc.so"), std::string::npos) << "the loader's list is missing";
  // librdkafka is ours, linked in (packaging/librdkafka/): no shared copy beside it.
  EXPECT_EQ(traced.err.find("librdkafka"), std::string::npos) << "a shared librdkafka was loaded";
  EXPECT_EQ(traced.err.find("libduckdb"), std::string::npos) << "DuckDB was loaded";
  // A run with something to do loads it when it first needs it.
  f.produce("orders", R"({"order_id": 999, "customer_id": "C9", "status": "placed", "amount": 1.00, "event_time": "2026-10-01T12:00:00Z"})");
  CommandResult working = f.lakestream("run", {}, {"LD_DEBUG=files"});
  ASSERT_EQ(working.exit_code, 0) << working.err;
  EXPECT_NE(working.err.find("libduckdb"), std::string::npos) << working.err.substr(0, 2000);
}

// Each run is killed with SIGKILL at a random moment, then run again to completion: the tables
// and check's lines are those of an uninterrupted run.
void play_with_random_kills(PipelineFixture& f, std::mt19937& rng) {
  std::uniform_int_distribution<int> delay_ms(0, 150);
  play_shop(f, [&] {
    f.lakestream_killed_after(delay_ms(rng), "run");
    run_ok(f);
  });
}

TEST(ShopScenario, RandomKillsChangeNothing) {
  for (unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    {
      PipelineFixture f(shop_pipeline(), {{"orders", 3}});
      play_with_random_kills(f, rng);
      EXPECT_EQ(f.lakestream("check").out, expected_check("expected-check.txt"));
      f.lakestream_killed_after(std::uniform_int_distribution<int>(0, 100)(rng), "recount");
      f.lakestream("recount");
      EXPECT_EQ(f.lakestream("check").out, expected_check("expected-check-after-recount.txt"));
      expect_other_readers_accept(f.dir() + "/lake");  // killed writers leave no log readers refuse
    }
    {
      PipelineFixture f(shop_pipeline(false), {{"orders", 3}});
      play_with_random_kills(f, rng);
      EXPECT_EQ(f.lakestream("check").out, expected_check("expected-check-without-dedup.txt"));
    }
  }
}

// A crash at each named point of the commit protocols (LAKESTREAM_FAULT), in every run.
TEST(ShopScenario, CrashAtEachCommitStepChangesNothing) {
  for (const std::string& point : crash_points()) {
    SCOPED_TRACE(point);
    PipelineFixture f(shop_pipeline(), {{"orders", 3}});
    bool crashed = false;
    play_shop(f, [&] {
      CommandResult r = f.lakestream("run", {}, {"LAKESTREAM_FAULT=" + point});
      crashed = crashed || r.signal == SIGKILL;
      run_ok(f);
    });
    EXPECT_EQ(f.lakestream("check").out, expected_check("expected-check.txt"));
    if (point != "after_quarantine_commit") {
      EXPECT_TRUE(crashed) << "the point was never reached";
    }
    expect_other_readers_accept(f.dir() + "/lake");
  }
}

}  // namespace
}  // namespace lakestream::testing

namespace lakestream::testing {
namespace {

// With dedup, an event older than the watermark is dropped even while its hour is still open;
// check tells it is late by design from the watermark the stream recorded for its batch.
TEST(ShopScenario, AnEventDroppedByTheWatermarkBeforeItsHourWasWrittenIsLateNotAProblem) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  auto order = [](int id, const char* time) {
    return "{\"order_id\":" + std::to_string(id) + ",\"customer_id\":\"C1\",\"status\":\"placed\",\"amount\":10.00," +
           "\"event_time\":\"2026-10-01T" + time + ":00Z\"}\n";
  };
  for (const std::string& events : {order(1, "09:05") + order(2, "10:50"),  // the watermark moves to 09:50
                                    order(3, "09:40"),                      // older than it: dropped, 09:00 still open
                                    order(4, "11:30")}) {                   // 09:00 is written, without order 3
    f.produce("orders", events, "order_id");
    ASSERT_EQ(f.lakestream("run").exit_code, 0);
  }
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_NE(check.out.find("late    09:00 counted 1 order, 10.00; bronze has 2 orders, 20.00: 1 was older than the "
                           "watermark when it arrived\n"),
            std::string::npos)
      << check.out;
}

}  // namespace
}  // namespace lakestream::testing
