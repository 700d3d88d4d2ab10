// The ingest stream (Kafka -> bronze) as a user runs it: every offset exactly once across runs,
// kills and bad records; a second run of a locked stream refused.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <unistd.h>

#include <random>

#include "support/pipeline_fixture.h"

namespace lakestream::testing {
namespace {

std::string ingest_pipeline(int max_offsets_per_trigger = 0) {
  return std::string(R"toml(
[kafka]
bootstrap = "@BOOTSTRAP@"

[sources.orders]
topic = "orders"
key = "order_id"
required = ["order_id", "event_time"]
max_value_bytes = 100000
)toml") + (max_offsets_per_trigger ? "max_offsets_per_trigger = " + std::to_string(max_offsets_per_trigger) + "\n" : "") +
         R"toml(
[sources.orders.schema]
order_id = "bigint"
customer_id = "string"
status = "string"
amount = "decimal(18,2)"
event_time = "timestamp"

[streams.read_orders]
kind = "ingest"
source = "orders"
table = "bronze_orders"
)toml";
}

// `n` order events, ids from `first`.
std::string orders(int first, int n) {
  std::string lines;
  for (int i = first; i < first + n; i++) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "{\"order_id\":%d,\"customer_id\":\"C%03d\",\"status\":\"placed\",\"amount\":%d.%02d,"
                  "\"event_time\":\"2026-10-01T%02d:%02d:%02dZ\"}\n",
                  i, i % 997, i % 500, i % 100, (i / 3600) % 24, (i / 60) % 60, i % 60);
    lines += line;
  }
  return lines;
}

const char* kCounts = "select count(*) as n, count(distinct (partition, \"offset\")) as offsets from bronze_orders";

TEST(Ingest, EveryOffsetOnceAcrossRuns) {
  PipelineFixture f(ingest_pipeline(), {{"orders", 3}});
  f.produce("orders", orders(0, 10000), "order_id");
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(f.query(kCounts), "n,offsets\n10000,10000\n");
  f.produce("orders", orders(10000, 5000), "order_id");
  r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(f.query(kCounts), "n,offsets\n15000,15000\n");
  // The values are the events', typed: the decimal exact, the timestamp in UTC.
  EXPECT_EQ(f.query("select order_id, customer_id, amount, event_time::VARCHAR as t, key from bronze_orders where order_id = 4321"),
            "order_id,customer_id,amount,t,key\n4321,C333,321.21,2026-10-01 01:12:01+00,4321\n");

  int commits = list_dir_count(f.dir() + "/lake/bronze_orders/_delta_log");
  r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(list_dir_count(f.dir() + "/lake/bronze_orders/_delta_log"), commits) << "a run with nothing new committed";
}

TEST(Ingest, MaxOffsetsPerTriggerSplitsTheBacklogIntoBatches) {
  PipelineFixture f(ingest_pipeline(1000), {{"orders", 3}});
  f.produce("orders", orders(0, 4500), "order_id");
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(f.query("select count(distinct _batch_id) as batches, max(n) as largest from "
                    "(select _batch_id, count(*) as n from bronze_orders group by _batch_id)"),
            "batches,largest\n5,1000\n");
  EXPECT_EQ(f.query(kCounts), "n,offsets\n4500,4500\n");
}

TEST(Ingest, KilledInTheMiddleOfABacklogThenRunAgain) {
  std::mt19937 rng(7);
  for (int round = 0; round < 4; round++) {
    SCOPED_TRACE("round " + std::to_string(round));
    PipelineFixture f(ingest_pipeline(500), {{"orders", 3}});
    f.produce("orders", orders(0, 8000), "order_id");
    // Kill a few runs part-way through the 16 batches, then let one finish.
    for (int kill = 0; kill < 3; kill++) {
      CommandResult killed = f.lakestream_killed_after(std::uniform_int_distribution<int>(50, 400)(rng), "run");
      EXPECT_TRUE(killed.signal == SIGKILL || killed.exit_code == 0) << killed.err;
    }
    CommandResult r = f.lakestream("run");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(f.query(kCounts), "n,offsets\n8000,8000\n");
    EXPECT_EQ(f.query("select count(distinct order_id) as orders from bronze_orders"), "orders\n8000\n");
  }
}

TEST(Ingest, BadRecordsGoToQuarantineWithTheirReason) {
  PipelineFixture f(ingest_pipeline(), {{"orders", 3}});
  std::vector<std::string> bad = {
      "{not json",
      "[1,2,3]",
      "\"just a string\"",
      "{\"customer_id\":\"C1\",\"status\":\"placed\",\"amount\":1.00,\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":1,\"customer_id\":\"C1\",\"status\":\"placed\",\"amount\":1.00}",
      "{\"order_id\":null,\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":2,\"amount\":\"abc\",\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":3,\"amount\":1.005,\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":4,\"event_time\":\"yesterday\"}",
      "{\"order_id\":5,\"event_time\":\"2026-13-45T99:00:00Z\"}",
      "{\"order_id\":6.5,\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":\"seven\",\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":99999999999999999999999,\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":8,\"customer_id\":{\"nested\":true},\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":9,\"status\":[\"a\"],\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":10,\"amount\":true,\"event_time\":\"2026-10-01T09:00:00Z\"}",
      "{\"order_id\":11,\"event_time\":12345}",
      "{\"order_id\":12,\"event_time\":\"2026-10-01T09:00:00Z\"",
      "{\"order_id\":13,\"customer_id\":\"" + std::string(1000000, 'x') + "\",\"event_time\":\"2026-10-01T09:00:00Z\"}",
  };
  ASSERT_EQ(bad.size(), 19u);  // the 20th, an empty value, is sent below
  std::string lines = orders(0, 300);
  for (size_t i = 0; i < bad.size(); i++) lines += orders(1000 + static_cast<int>(i) * 10, 10) + bad[i] + "\n";
  f.produce("orders", lines);  // no key: the bad lines have none either
  f.produce_empty("orders");
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("20 quarantined"), std::string::npos) << r.out;

  EXPECT_EQ(f.query("select count(*) as n, count(reason) as with_reason, count(distinct (partition, \"offset\")) as offsets "
                    "from bronze_orders_quarantine"),
            "n,with_reason,offsets\n20,20,20\n");
  EXPECT_EQ(f.query(kCounts), "n,offsets\n490,490\n");
  // Bronze and quarantine together hold every message of the topic, none in both.
  EXPECT_EQ(f.query("select count(*) as n from (select partition, \"offset\" from bronze_orders union all "
                    "select partition, \"offset\" from bronze_orders_quarantine)"),
            "n\n510\n");
  std::string reasons = f.query("select translate(reason, '\"', '') as reason from bronze_orders_quarantine");
  for (const char* expected : {"not valid JSON", "not a JSON object", "missing required field order_id",
                               "missing required field event_time", "is not a decimal(18,2)", "is not a timestamp",
                               "is not a bigint", "over max_value_bytes", "empty value"})
    EXPECT_NE(reasons.find(expected), std::string::npos) << expected << " not among:\n" << reasons;
  // The raw value is kept byte for byte, so nothing is lost.
  EXPECT_EQ(f.query("select count(*) as n from bronze_orders_quarantine where decode(value) = '{not json'"), "n\n1\n");
  // query prints a value that is text as that text, not as escaped bytes.
  EXPECT_EQ(f.query("select value from bronze_orders_quarantine where decode(value) like '{\"customer_id\":\"C1\"%'"),
            "value\n\"{\"\"customer_id\"\":\"\"C1\"\",\"\"status\"\":\"\"placed\"\",\"\"amount\"\":1.00,\"\"event_time\"\":"
            "\"\"2026-10-01T09:00:00Z\"\"}\"\n");
  CommandResult table = f.lakestream("query", {"select value from bronze_orders_quarantine where decode(value) = '[1,2,3]'"});
  EXPECT_EQ(table.out, "value  \n-------\n[1,2,3]\n(1 row)\n") << table.err;
}

TEST(Ingest, ASecondRunOfALockedStreamIsRefused) {
  PipelineFixture f(ingest_pipeline(), {{"orders", 3}});
  f.produce("orders", orders(0, 10), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  // Another process holds the stream's checkpoint lock, as a running `lakestream run` does.
  std::string lock = f.dir() + "/checkpoints/read_orders/lock";
  int fd = ::open(lock.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  CommandResult r = f.lakestream("run");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("stream read_orders is already running"), std::string::npos) << r.err;
  ::close(fd);
  EXPECT_EQ(f.lakestream("run").exit_code, 0);
}

}  // namespace
}  // namespace lakestream::testing

namespace lakestream::testing {
namespace {

TEST(IngestStop, SigintMidBacklogStopsAtABatchBoundaryAndARerunCompletesExactlyOnce) {
  PipelineFixture f(ingest_pipeline(1000), {{"orders", 3}});
  f.produce("orders", orders(0, 60000), "order_id");
  BackgroundProcess run({"run", "-p", f.pipeline_file()}, f.dir());
  ASSERT_TRUE(run.wait_for_output("read_orders: batch 3:", 30000)) << run.out() << run.err();
  run.send_signal(SIGINT);
  CommandResult stopped = run.wait(30000);
  EXPECT_EQ(stopped.exit_code, 130) << stopped.out << stopped.err;
  EXPECT_NE(stopped.out.find("stopped on request, at a batch boundary: every batch that started was committed"),
            std::string::npos)
      << stopped.out;
  EXPECT_NE(stopped.out.find("committed in this run:\n  read_orders: batches 0 to "), std::string::npos) << stopped.out;
  EXPECT_NE(stopped.out.find("not run:\n  read_orders: the rest of its input"), std::string::npos) << stopped.out;

  // What it says was committed is what bronze holds.
  std::string held = f.query(kCounts);
  auto at = stopped.out.find("read_orders: batches 0 to ");
  int64_t last = std::stoll(stopped.out.substr(at + 26));
  int64_t rows = std::stoll(stopped.out.substr(stopped.out.find("(", at) + 1));
  EXPECT_EQ(rows, (last + 1) * 1000);
  EXPECT_EQ(held, "n,offsets\n" + std::to_string(rows) + "," + std::to_string(rows) + "\n");
  EXPECT_LT(rows, 60000);

  CommandResult rerun = f.lakestream("run");
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_EQ(f.query(kCounts), "n,offsets\n60000,60000\n");
}

}  // namespace
}  // namespace lakestream::testing
