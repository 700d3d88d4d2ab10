// Streams that read a table with updates (`read` = "changes" or "skip_changes"): silver writes
// its change data feed, a latest stream over that feed mirrors silver (deletes included), a
// window over it counts each order once, and a latest stream that skips silver's change versions
// keeps only what silver appended. Silver is the independent reference of the mirror: after
// every run, on the shop and on generated updates (copy-on-write and merge-on-read silver), the
// mirror must hold silver's rows exactly; check recomputes every table from the feed.
#include <chrono>
#include <csignal>
#include <random>
#include <thread>

#include "shop/shop_scenario.h"
#include "support/crash_points.h"

namespace lakestream::testing {
namespace {

// The streams reading silver, after a silver that writes its feed and deletes cancelled orders.
const char* kReadersOfSilver = R"toml(
# a copy of silver from its change data feed
[streams.mirror_orders]
kind = "latest"
from = "orders"
read = "changes"
table = "orders_mirror"
key = ["order_id"]
order_by = "event_time"
deletes = "_change_type = 'delete'"

# each order once, in the hour of its first state in silver
[streams.silver_hours]
kind = "window"
from = "orders"
read = "changes"
table = "silver_hours"
filter = "_change_type IN ('insert', 'update_postimage')"
event_time = "event_time"
watermark = "1 hour"
dedup = ["order_id"]
window = "1 hour"
window_column = "hour"

[streams.silver_hours.aggregates]
orders = "count(*)"
revenue = "sum(amount)"

# what silver appended, its versions that change rows skipped
[streams.appended_orders]
kind = "latest"
from = "orders"
read = "skip_changes"
table = "appended_orders"
key = ["order_id"]
order_by = "event_time"
)toml";

std::string silver_with_feed(const std::string& toml, bool deletion_vectors = false) {
  return replaced(toml, "order_by = \"event_time\"\n",
                  std::string("order_by = \"event_time\"\nchange_data_feed = true\ndeletes = \"status = 'cancelled'\"\n") +
                      (deletion_vectors ? "deletion_vectors = true\n" : ""));
}

std::string shop_reading_silver() { return silver_with_feed(shop_pipeline()) + kReadersOfSilver; }

// The shop's columns and lineage: what the mirror must hold as silver does.
constexpr const char* kOrderColumns = "order_id, customer_id, status, amount, event_time, \"partition\", \"offset\", _batch_id";

// Rows in one table and not the other, both ways (empty when the mirror is silver).
void expect_mirror_is_silver(PipelineFixture& f, const std::string& when) {
  std::string columns = kOrderColumns;
  EXPECT_EQ(f.query("select count(*) as differ from ((select " + columns + " from orders except all select " + columns +
                    " from orders_mirror) union all (select " + columns + " from orders_mirror except all select " + columns +
                    " from orders))"),
            "differ\n0\n")
      << when;
}

void expect_check_ok(PipelineFixture& f, const std::string& when) {
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << when << "\n" << check.out << check.err;
  EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << when << "\n" << check.out;
  for (const char* line : {"ok      orders_mirror has the newest state of all", "ok      appended_orders has the newest state of all"})
    EXPECT_NE(check.out.find(line), std::string::npos) << when << ": no line '" << line << "'\n" << check.out;
}

// After the shop's five sends: order 1004 cancelled (silver deletes it), 1001 shipped.
const char* kCancelAndShip =
    R"({"order_id":1004,"customer_id":"C03","status":"cancelled","amount":30.00,"event_time":"2026-10-01T13:30:00Z"}
{"order_id":1001,"customer_id":"C01","status":"shipped","amount":25.00,"event_time":"2026-10-01T13:40:00Z"}
)";

TEST(ShopReadChanges, AMirrorOfSilversFeedIsSilverAndAWindowOverItCountsEachOrderOnce) {
  PipelineFixture f(shop_reading_silver(), {{"orders", 3}});
  int send = 0;
  play_shop(f, [&] {
    run_ok(f);
    expect_mirror_is_silver(f, "after send " + std::to_string(++send));
  });
  f.produce("orders", kCancelAndShip, "order_id");
  run_ok(f);
  expect_mirror_is_silver(f, "after the cancel");
  EXPECT_EQ(f.query("select order_id, status from orders_mirror where order_id in (1001, 1004) order by 1"),
            "order_id,status\n1001,shipped\n");
  // Each order counted in the hour of its first state, the late 1006 dropped (its hour was
  // written), 1002's shipment a duplicate of its placement: as the shop's own hours.
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders, revenue from silver_hours order by hour"),
            "h,orders,revenue\n09:00,3,68.50\n10:00,2,55.00\n11:00,1,18.25\n");
  // Silver's second version updated 1002 and inserted 1004 and 1007: all three skipped, as
  // Spark's skipChangeCommits skips a whole commit that changes rows.
  EXPECT_EQ(f.query("select string_agg(order_id::VARCHAR || ':' || status, ' ' order by order_id) as orders from appended_orders"),
            "orders\n1001:placed 1002:placed 1003:placed 1005:placed 1006:placed 1008:placed 1009:placed\n");
  expect_check_ok(f, "after the cancel");
  CommandResult check = f.lakestream("check");
  EXPECT_NE(check.out.find("late    silver_hours 09:00 counted 3 orders, 68.50; silver has 4 orders, 90.50: 1 arrived after "
                           "the hour was written"),
            std::string::npos)
      << check.out;
  // recount writes the hour with the late order, from the same changes.
  CommandResult recount = f.lakestream("recount");
  ASSERT_EQ(recount.exit_code, 0) << recount.err;
  EXPECT_NE(recount.out.find("recount: silver_hours 2026-10-01 09:00: 3 orders, 68.50 -> 4 orders, 90.50\n"), std::string::npos)
      << recount.out;
  check = f.lakestream("check");
  EXPECT_NE(check.out.find("ok      silver_hours 09:00 4 orders, 90.50"), std::string::npos) << check.out;
  EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
  // why follows a record into the tables that read appends, and says where it stops.
  CommandResult why = f.lakestream("why", {"0:0"});
  EXPECT_EQ(why.exit_code, 0) << why.err;
  EXPECT_NE(why.out.find("mirror_orders reads orders's change data feed (read = \"changes\"), which why does not follow"),
            std::string::npos)
      << why.out;
  why = f.lakestream("why", {"--window", "silver_hours 09:00"});
  EXPECT_NE(why.exit_code, 0);
  EXPECT_NE(why.err.find("silver_hours reads orders's change data feed (read = \"changes\"), whose records why does not list"),
            std::string::npos)
      << why.err;
}

TEST(ShopReadChanges, AStreamReadingAppendsStopsAtSilversFirstUpdateAndSaysWhatToSet) {
  std::string toml = shop_pipeline() + R"(
[streams.silver_copy]
kind = "latest"
from = "orders"
table = "silver_copy"
key = ["order_id"]
order_by = "event_time"
)";
  PipelineFixture f(toml, {{"orders", 3}});
  auto batches = shop_batches();
  f.produce("orders", batches.at("1"), "order_id");
  run_ok(f);
  f.produce("orders", batches.at("2"), "order_id");  // ships 1002: silver rewrites its row
  CommandResult r = f.lakestream("run");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("is not append-only: version 1 deleted or rewrote rows"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("set read = \"changes\" to read the table's change data feed (its writer needs change_data_feed = true), "
                       "read = \"skip_changes\" to skip such versions"),
            std::string::npos)
      << r.err;
}

TEST(ShopReadChanges, ACrashAtEachStepOfTheStreamsReadingTheFeedLosesNothing) {
  for (const std::string& point : crash_points()) {
    if (point == "after_kafka_read" || point == "after_quarantine_commit") continue;  // ingest's own
    SCOPED_TRACE(point);
    PipelineFixture f(shop_reading_silver(), {{"orders", 3}});
    bool crashed = false;
    auto run_crashing = [&] {
      run_ok(f, {"read_orders", "latest_orders"});
      CommandResult r = f.lakestream("run", {"mirror_orders", "silver_hours", "appended_orders"}, {"LAKESTREAM_FAULT=" + point});
      crashed = crashed || r.signal == SIGKILL;
      run_ok(f);
    };
    play_shop(f, run_crashing);
    f.produce("orders", kCancelAndShip, "order_id");
    run_crashing();
    EXPECT_TRUE(crashed) << "the point was never reached";
    expect_mirror_is_silver(f, "after crashes at " + point);
    EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders, revenue from silver_hours order by hour"),
              "h,orders,revenue\n09:00,3,68.50\n10:00,2,55.00\n11:00,1,18.25\n");
    expect_check_ok(f, "after crashes at " + point);
  }
}

TEST(ShopReadChanges, InContinuousModeTheMirrorFollowsSilverAsItRuns) {
  PipelineFixture f(shop_reading_silver(), {{"orders", 3}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir());
  auto batches = shop_batches();
  for (const std::string batch : {"1", "2", "3", "4", "5"}) f.produce("orders", batches.at(batch), "order_id");
  f.produce("orders", kCancelAndShip, "order_id");
  // Until the mirror has the cancel and the shipment (silver's last changes), at most 60 s.
  const std::string done = "order_id,status\n1001,shipped\n";
  std::string seen;
  for (int i = 0; i < 300 && seen != done; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    seen = f.lakestream("query", {"--format", "csv", "select order_id, status from orders_mirror where order_id in (1001, 1004) order by 1"}).out;
  }
  EXPECT_EQ(seen, done) << run.out() << run.err();
  run.send_signal(SIGTERM);
  CommandResult stopped = run.wait(60000);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  expect_mirror_is_silver(f, "after the continuous run");
  expect_check_ok(f, "after the continuous run");
}

// Generated updates: 40 orders changing status at random times (some older than the order's
// newest state, which silver ignores; some sent twice; a cancel deletes the order and a later
// event brings it back), in 6 rounds of two sends of 15: bronze runs after the first, every
// stream after the second, so that bronze's batches and silver's versions are numbered apart.
std::string generated_send(std::mt19937& random, int send) {
  static const char* statuses[] = {"placed", "paid", "shipped", "cancelled", "returned"};
  std::string lines, previous;
  for (int i = 0; i < 15; i++) {
    if (!previous.empty() && random() % 6 == 0) {  // a resend
      lines += previous;
      continue;
    }
    int order = 1 + static_cast<int>(random() % 40);
    int minute = send * 60 + static_cast<int>(random() % 180) - 60;
    char line[256];
    std::snprintf(line, sizeof line,
                  "{\"order_id\":%d,\"customer_id\":\"C%02d\",\"status\":\"%s\",\"amount\":%d.%02d,"
                  "\"event_time\":\"2026-10-01T%02d:%02d:%02dZ\"}\n",
                  order, order % 7, statuses[random() % 5], 5 + static_cast<int>(random() % 50), static_cast<int>(random() % 100),
                  8 + std::max(0, minute) / 60, std::max(0, minute) % 60, static_cast<int>(random() % 60));
    previous = line;
    lines += previous;
  }
  return lines;
}

class ReadChangesOfGeneratedUpdates : public ::testing::TestWithParam<std::tuple<bool, unsigned>> {};

TEST_P(ReadChangesOfGeneratedUpdates, TheMirrorIsSilverAfterEveryRunAndCheckAgrees) {
  auto [deletion_vectors, seed] = GetParam();
  PipelineFixture f(silver_with_feed(shop_pipeline(), deletion_vectors) + kReadersOfSilver, {{"orders", 3}});
  std::mt19937 random(seed);
  for (int send = 0; send < 6; send++) {
    f.produce("orders", generated_send(random, send), "order_id");
    run_ok(f, {"read_orders"});
    f.produce("orders", generated_send(random, send), "order_id");
    run_ok(f);
    expect_mirror_is_silver(f, "seed " + std::to_string(seed) + ", after send " + std::to_string(send));
  }
  EXPECT_NE(f.query("select count(*) from orders_mirror"), "count_star()\n0\n");
  expect_check_ok(f, "seed " + std::to_string(seed));
}

INSTANTIATE_TEST_SUITE_P(Seeds, ReadChangesOfGeneratedUpdates,
                         ::testing::Combine(::testing::Bool(), ::testing::Values(1u, 2u, 3u)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) ? "MergeOnRead" : "CopyOnWrite") + "Seed" +
                                  std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace lakestream::testing
