// `lakestream run --continuous`: picks up new events on its interval, stops cleanly on SIGTERM
// after the batch in flight, retries failures with backoff; `--metrics-port` serves Prometheus
// metrics meanwhile.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <regex>
#include <thread>

#include "ops_pipeline.h"
#include "table/delta_table.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

// Waits until `query` on the lake gives `expected` (or the time is up); the last answer.
std::string wait_for_query(PipelineFixture& f, const std::string& sql, const std::string& expected, int timeout_ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string answer;
  while (std::chrono::steady_clock::now() < until) {
    CommandResult r = f.lakestream("query", {"--format", "csv", sql});
    answer = r.out;
    if (answer == expected) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return answer;
}

// The value of one sample ("name{labels}") in Prometheus text; -1 when absent.
double metric(const std::string& text, const std::string& sample) {
  auto at = text.find("\n" + sample + " ");
  return at == std::string::npos ? -1 : std::stod(text.substr(at + sample.size() + 2));
}

int count_of(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
  return n;
}

TEST(Continuous, IntervalZeroRunsAgainAtOnceAndBacksOffWhileIdle) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  // A bare 0, as the help offers it ("0 starts each run as soon as the last is done").
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0", "--heartbeat", "3s"},
                        f.dir());
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n3\n", 20000), "n\n3\n");
  // Idle: the waits double from 10 ms to 1 s, so a heartbeat of 3 s idle counts a few runs, not
  // the hundred a loop without waits would make.
  const std::string idle = "alive (ingest streams): 0 batches in ";
  ASSERT_TRUE(run.wait_for_output(idle, 20000)) << run.out();
  std::string out = run.out();
  int idle_runs = std::stoi(out.substr(out.find(idle) + idle.size()));
  EXPECT_GE(idle_runs, 1) << out;
  EXPECT_LE(idle_runs, 20) << out;
  // And new events end the idle waits: picked up at the next run.
  f.produce("orders", order_at(4, "1140"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n4\n", 20000), "n\n4\n");
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(30000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Continuous, IngestAndSilverGoOnWhileGoldRuns) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  // The window stream holds each batch 15 s after its state commit; ingest and the latest stream
  // must not wait for it.
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir(),
                        {"LAKESTREAM_PAUSE=after_state_commit:15000"});
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n3\n", 20000), "n\n3\n");
  ASSERT_TRUE(run.wait_for_output("hourly_sales: batch", 20000)) << run.out() << run.err();
  f.produce("orders", order_at(4, "1140") + order_at(5, "1150"), "order_id");
  // Well inside the window stream's pause: only stages of their own let ingest and silver go on.
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n5\n", 10000), "n\n5\n") << run.out();
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from orders", "n\n5\n", 5000), "n\n5\n") << run.out();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(60000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Lines of the two stages never mix within a line.
  for (size_t start = 0; start < r.out.size();) {
    size_t end = r.out.find('\n', start);
    std::string line = r.out.substr(start, end - start);
    EXPECT_LE(count_of(line, ": batch "), 1) << line;
    if (end == std::string::npos) break;
    start = end + 1;
  }
}

// A service writes its checkpoints beside the batches (table/background_checkpoints.h): held
// 10 s before its rename, bronze's checkpoint of version 10 holds up no batch after it, and the
// service still writes it before it stops.
TEST(Continuous, ACheckpointHoldsUpNoBatchAndIsWrittenBeforeTheServiceStops) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir(),
                        {"LAKESTREAM_PAUSE=before_checkpoint_rename:10000"});
  const std::string log = f.dir() + "/lake/bronze_orders/_delta_log/";
  auto count_is = [](int n) { return "n\n" + std::to_string(n) + "\n"; };
  // An order a batch until bronze has committed version 10, whose checkpoint is then due.
  int sent = 0;
  while (!std::filesystem::exists(log + "00000000000000000010.json") && sent < 30) {
    sent++;
    f.produce("orders", order_at(sent, "0905"), "order_id");
    ASSERT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", count_is(sent), 20000), count_is(sent));
  }
  ASSERT_TRUE(std::filesystem::exists(log + "00000000000000000010.json"));
  auto sent_at = std::chrono::steady_clock::now();
  f.produce("orders", order_at(sent + 1, "0906"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", count_is(sent + 1), 20000), count_is(sent + 1));
  // Written in the batch, the checkpoint would have held this order for most of its 10 s.
  EXPECT_LT(std::chrono::steady_clock::now() - sent_at, std::chrono::seconds(5)) << run.out();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(90000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(log + "00000000000000000010.checkpoint.parquet")) << r.out;
  EXPECT_EQ(nlohmann::json::parse(read_file(log + "_last_checkpoint"))["version"], 10);
}

// Gold's idle mark (checkpoint/idle_mark.h) lets a run skip opening the window state when nothing
// is new. A service keeps it in memory: no idle.json written, synced and removed at every batch.
// A plain run after the service finds the state as the service left it and has nothing to do.
TEST(Continuous, AServiceKeepsGoldsIdleMarkInMemoryAndARunAfterItHasNothingToDo) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  const std::string idle_file = f.dir() + "/checkpoints/hourly_sales/idle.json";
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir());
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  // 11:30 moves the watermark to 10:30: the 09:00 hour closes.
  const std::string closed = "h,orders\n09:00,2\n";
  const std::string gold = "select strftime(hour, '%H:%M') as h, orders from hourly_sales order by hour";
  ASSERT_EQ(wait_for_query(f, gold, closed, 20000), closed) << run.out();
  f.produce("orders", order_at(4, "1140"), "order_id");
  ASSERT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n4\n", 20000), "n\n4\n");
  ASSERT_TRUE(run.wait_for_output("hourly_sales: batch 1", 20000)) << run.out();
  // Idle cycles of every stream go by.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_FALSE(std::filesystem::exists(idle_file)) << "a service wrote gold's idle mark to its checkpoint";
  run.send_signal(SIGTERM);
  CommandResult stopped = run.wait(30000);
  ASSERT_EQ(stopped.exit_code, 0) << stopped.err;
  size_t batches = read_progress_log(f.dir(), "hourly_sales").size();

  CommandResult after = f.lakestream("run");
  ASSERT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out.find("hourly_sales: batch"), std::string::npos) << after.out;
  EXPECT_EQ(read_progress_log(f.dir(), "hourly_sales").size(), batches);
  EXPECT_EQ(f.lakestream("query", {"--format", "csv", gold}).out, closed);
  // The plain run leaves the mark for the next one.
  EXPECT_TRUE(std::filesystem::exists(idle_file));
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

TEST(Continuous, RunsOnItsIntervalServesMetricsAndStopsCleanlyOnSigterm) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s", "--metrics-port", "0"},
                        f.dir());
  ASSERT_TRUE(run.wait_for_output("/metrics", 10000)) << run.out() << run.err();
  int port = port_in(run.out());
  ASSERT_GT(port, 0) << run.out();

  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n3\n", 20000), "n\n3\n");
  // The window stream runs in a stage of its own: once it has read these (its watermark 10:30),
  // the next send's 09:10 order is late.
  for (int i = 0; i < 100; i++) {
    if (http_get(port, "/metrics").find("lakestream_watermark_seconds{stream=\"hourly_sales\"} 1790850600\n") !=
        std::string::npos)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  f.produce("orders", order_at(4, "0910") + order_at(5, "1140"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n5\n", 20000), "n\n5\n");
  // The window stream follows on the same interval: the late 09:10 order is dropped and counted.
  std::string metrics;
  for (int i = 0; i < 100; i++) {
    metrics = http_get(port, "/metrics");
    if (metrics.find("lakestream_late_rows_dropped_total{stream=\"hourly_sales\"} 1\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_NE(metrics.find("lakestream_input_rows_total{stream=\"read_orders\"} 5\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("lakestream_late_rows_dropped_total{stream=\"hourly_sales\"} 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("# TYPE lakestream_batch_duration_seconds histogram"), std::string::npos);
  // Every batch is in the histogram: the empty first one (when the topic had nothing yet) too.
  double batches = metric(metrics, "lakestream_batches_total{stream=\"read_orders\"}");
  EXPECT_GE(batches, 2);
  EXPECT_EQ(metric(metrics, "lakestream_batch_duration_seconds_count{stream=\"read_orders\"}"), batches);
  EXPECT_EQ(metric(metrics, "lakestream_batch_duration_seconds_bucket{stream=\"read_orders\",le=\"+Inf\"}"), batches);
  EXPECT_NE(metrics.find("lakestream_watermark_seconds{stream=\"hourly_sales\"} 1790851200\n"), std::string::npos)
      << "10:40 UTC" << metrics;
  EXPECT_NE(metrics.find("lakestream_lag{stream=\"read_orders\",partition=\"0\"} 0\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("lakestream_processing_below_input{stream=\"read_orders\"} 0\n"), std::string::npos);
  EXPECT_NE(metrics.find("lakestream_state_rows{stream=\"hourly_sales\"} 1\n"), std::string::npos) << metrics;
  std::string status;
  http_get(port, "/nothing", &status);
  EXPECT_EQ(status, "HTTP/1.0 404 Not Found");

  run.send_signal(SIGTERM);
  CommandResult r = run.wait(30000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("stopped on request"), std::string::npos) << r.out;
  EXPECT_EQ(stream_status(f, "read_orders")["health"], "ok");
}

// The probes an orchestrator uses: /healthz while the process answers; /readyz 200 while every
// stream runs and none fails, 503 naming the failing stream once one fails.
TEST(Continuous, HealthEndpointsSayLiveAndReadyThenNotReadyWhileAStreamFails) {
  PipelineFixture f(ops_pipeline(), {{"orders", 1}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s", "--metrics-port", "0"},
                        f.dir());
  ASSERT_TRUE(run.wait_for_output("/metrics", 10000)) << run.out() << run.err();
  int port = port_in(run.out());
  std::string status;
  EXPECT_EQ(http_get(port, "/healthz", &status), "ok\n");
  EXPECT_EQ(status, "HTTP/1.0 200 OK");

  f.produce("orders", order_at(1, "0905") + order_at(2, "0950"), "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n2\n", 20000), "n\n2\n");
  std::string ready;
  for (int i = 0; i < 100; i++) {
    ready = http_get(port, "/readyz", &status);
    if (status == "HTTP/1.0 200 OK") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, "HTTP/1.0 200 OK") << ready;
  for (const char* stream : {"read_orders", "latest_orders", "hourly_sales"})
    EXPECT_NE(ready.find(std::string("ok      ") + stream + ": "), std::string::npos) << ready;

  // The broker's topics wiped and served at a new address: the ingest stream fails on every retry
  // (a run in flight gives up after its 30 s without progress).
  f.broker().reset();
  for (int i = 0; i < 600; i++) {
    ready = http_get(port, "/readyz", &status);
    if (status != "HTTP/1.0 200 OK") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, "HTTP/1.0 503 Service Unavailable") << ready;
  EXPECT_NE(ready.find("not ok  read_orders: failing: "), std::string::npos) << ready;
  EXPECT_EQ(http_get(port, "/healthz", &status), "ok\n");  // live all the same: a restart would not help
  run.send_signal(SIGTERM);
  EXPECT_EQ(run.wait(30000).exit_code, 0);
}

// No compaction: its commits would change which versions a log retention lets go.
std::string pipeline_without_compaction() {
  std::string toml = ops_pipeline();
  return toml.replace(toml.find("[lake]\n"), 7, "[lake]\ncompact = false\n");
}

// Bronze with 22 versions (a checkpoint at 10 and at 20), one order each, made by plain runs of
// every stream (so none still needs an old version), every file of it 40 days old (past the
// default log retention, 30 days), and one more order in Kafka.
void make_bronze_log_expired_with_an_order_waiting(PipelineFixture& f) {
  for (int i = 0; i < 22; i++) {
    f.produce("orders", order_at(100 + i, "0905"), "order_id");
    ASSERT_EQ(f.lakestream("run").exit_code, 0);
  }
  auto forty_days_ago = std::filesystem::file_time_type::clock::now() - std::chrono::hours(24 * 40);
  for (const auto& e : std::filesystem::recursive_directory_iterator(f.dir() + "/lake/bronze_orders"))
    if (e.is_regular_file()) std::filesystem::last_write_time(e.path(), forty_days_ago);
  f.produce("orders", order_at(200, "0910"), "order_id");
}

// What the cleanup tests end on, once `run` stops: the log starts at the checkpoint at 20 (the
// versions before it deleted), bronze holds each of the 23 orders once, and a plain run and check
// after it are clean.
void expect_clean_once_stopped(PipelineFixture& f, BackgroundProcess& run, const std::string& log) {
  run.send_signal(SIGTERM);
  EXPECT_EQ(run.wait(30000).exit_code, 0);
  EXPECT_FALSE(std::filesystem::exists(log + "/00000000000000000019.json"));
  EXPECT_TRUE(std::filesystem::exists(log + "/00000000000000000020.checkpoint.parquet"));
  EXPECT_EQ(f.query("select count(*) as n, count(distinct order_id) as orders from bronze_orders"), "n,orders\n23,23\n");
  CommandResult rest = f.lakestream("run");
  EXPECT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

// A service's Delta logs stay bounded without a manual vacuum: at start (and hourly) it deletes
// the commits and checkpoints before the newest checkpoint past the log retention, on a thread of
// its own, so that the first batch after a (re)start does not wait for the cleanup's listing.
TEST(Continuous, CleansTheDeltaLogsByTheirRetentionWithoutHoldingUpTheFirstBatch) {
  PipelineFixture f(pipeline_without_compaction(), {{"orders", 1}});
  std::string log = f.dir() + "/lake/bronze_orders/_delta_log";
  ASSERT_NO_FATAL_FAILURE(make_bronze_log_expired_with_an_order_waiting(f));
  ASSERT_TRUE(std::filesystem::exists(log + "/00000000000000000020.checkpoint.parquet"));
  // The cleanup held 5 s before each table: the batch must not wait for it.
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s", "read_orders"}, f.dir(),
                        {"LAKESTREAM_PAUSE=log_cleanup:5000"});
  // Versions 0 to 19 and the checkpoint at 10: the checkpoint at 20 and what follows replay the table.
  const std::string cleaned = "bronze_orders: deleted 21 log files past the table's log retention";
  ASSERT_TRUE(run.wait_for_output(cleaned, 20000)) << run.out() << run.err();
  size_t batch_line = run.out().find("read_orders: batch");
  ASSERT_NE(batch_line, std::string::npos) << run.out();
  EXPECT_LT(batch_line, run.out().find(cleaned)) << run.out();
  EXPECT_FALSE(std::filesystem::exists(log + "/00000000000000000000.json"));
  expect_clean_once_stopped(f, run, log);
}

// A kill -9 midway through the log cleanup, which runs beside the batches: the log still starts
// at a whole version (oldest first), the table reads whole, and the next start deletes the rest;
// every order is in bronze once.
TEST(Continuous, AKillMidwayThroughTheLogCleanupLosesNothingAndTheNextStartFinishesIt) {
  PipelineFixture f(pipeline_without_compaction(), {{"orders", 1}});
  std::string log = f.dir() + "/lake/bronze_orders/_delta_log";
  ASSERT_NO_FATAL_FAILURE(make_bronze_log_expired_with_an_order_waiting(f));
  // Killed as it is about to delete its sixth log file of 21, whether or not the batch is in.
  BackgroundProcess killed({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s", "read_orders"}, f.dir(),
                           {"LAKESTREAM_FAULT=vacuum_log_delete:6"});
  CommandResult died = killed.wait(30000);
  ASSERT_EQ(died.signal, SIGKILL) << killed.out() << killed.err();
  EXPECT_FALSE(std::filesystem::exists(log + "/00000000000000000004.json"));
  EXPECT_TRUE(std::filesystem::exists(log + "/00000000000000000005.json"));
  std::string rows = f.query("select count(*) as n from bronze_orders");
  EXPECT_TRUE(rows == "n\n22\n" || rows == "n\n23\n") << rows;

  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s", "read_orders"}, f.dir());
  // Versions 5 to 19 and the checkpoint at 10 were left.
  ASSERT_TRUE(run.wait_for_output("bronze_orders: deleted 16 log files past the table's log retention", 20000))
      << run.out() << run.err();
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_orders", "n\n23\n", 20000), "n\n23\n") << run.out();
  expect_clean_once_stopped(f, run, log);
}

// Small batches at a steady rate, as a service sees them: the streams merge their tables' small
// files as they go, so that each partition of each table keeps a bounded number of them however
// many batches went in, and the answers are those of a plain run (check is clean).
TEST(Continuous, CompactsSmallFilesAsItGoesSoTheirCountStaysBounded) {
  std::string toml = ops_pipeline();
  toml.replace(toml.find("[lake]\n"), 7, "[lake]\ncompact_min_files = 4\n");
  PipelineFixture f(toml, {{"orders", 2}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir());
  const int sends = 60;
  for (int i = 0; i < sends; i++) {
    // Two orders a send, an hour of event time over the run: windows close as it goes.
    std::string minute = std::to_string(10 + i % 50);
    f.produce("orders", order_at(2 * i, (i < 30 ? "09" : "10") + minute) + order_at(2 * i + 1, "11" + minute), "order_id");
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from orders", "n\n" + std::to_string(2 * sends) + "\n", 30000),
            "n\n" + std::to_string(2 * sends) + "\n") << run.out() << run.err();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(60000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("bronze_orders: compacted "), std::string::npos) << r.out;
  EXPECT_FALSE(delta::latest_version(f.dir() + "/lake/bronze_orders_quarantine") >= 0 ||
               r.out.find("compaction failed") != std::string::npos)
      << "no bad record, no quarantine table, and no failure reported for it:\n" << r.out;
  for (const char* table : {"bronze_orders", "orders"}) {  // gold: the next test
    std::string path = f.dir() + "/lake/" + table;
    int data_commits = 0, compactions = 0;
    for (const auto& commit : delta::read_commits(path, 0, delta::latest_version(path))) {
      bool compaction = commit.commit_info.value("operation", "") == "OPTIMIZE";
      compactions += compaction;
      data_commits += !compaction && !commit.adds.empty();
    }
    std::map<std::string, int> files_per_partition;
    for (const auto& file : delta::load_snapshot(path).files) {
      std::string partition;
      for (const auto& [column, value] : file.partition_values) partition += column + "=" + value.value_or("null") + " ";
      files_per_partition[partition]++;
    }
    // Tiny files (a few KiB) span at most 3 size tiers 4x apart here; a tier holds fewer than 4
    // after a check, and up to 3 more batches go in before the next: at most 3 x (3 + 3).
    for (const auto& [partition, files] : files_per_partition)
      EXPECT_LE(files, 18) << table << " " << partition << "after " << data_commits << " commits";
    EXPECT_GT(compactions, 0) << table;
    if (std::string(table) == "bronze_orders") {
      EXPECT_GE(data_commits, 20) << "the run should have taken many small batches";
    }
  }
  // Gold's files follow its windows (3 hours here), not its batches.
  size_t gold_files = delta::load_snapshot(f.dir() + "/lake/hourly_sales").files.size();
  EXPECT_LE(gold_files, 6u) << "hourly_sales";
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
}

// A window table with minute windows and a minute's watermark: nearly every batch closes a window
// and adds a file. Its small files are merged as it goes too, each merged file keeping which source
// batch each row had seen (table/seen_batches.h), so check still tells the late events (an order
// twenty minutes old now and then) from a wrong count: late lines, no PROBLEM.
TEST(Continuous, CompactsAWindowTableAsItGoesAndCheckStillTellsLateFromWrong) {
  std::string toml = ops_pipeline();
  toml.replace(toml.find("[lake]\n"), 7, "[lake]\ncompact_min_files = 4\n");
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"watermark = \"1 hour\"", "watermark = \"1 minute\""}, {"window = \"1 hour\"", "window = \"1 minute\""}}) {
    ASSERT_NE(toml.find(from), std::string::npos) << from;
    toml.replace(toml.find(from), from.size(), to);
  }
  PipelineFixture f(toml, {{"orders", 2}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir());
  const int sends = 60;
  int orders = 0;
  auto hhmm = [](int minute) {
    char text[8];
    std::snprintf(text, sizeof text, "%02d%02d", 9 + minute / 60, minute % 60);
    return std::string(text);
  };
  for (int i = 0; i < sends; i++) {
    std::string batch = order_at(orders++, hhmm(10 + i));
    if (i >= 20 && i % 7 == 6) batch += order_at(orders++, hhmm(i - 10));  // its window closed long ago: late
    f.produce("orders", batch, "order_id");
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  }
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from orders", "n\n" + std::to_string(orders) + "\n", 30000),
            "n\n" + std::to_string(orders) + "\n") << run.out() << run.err();
  // Every minute but the last two (the watermark is a minute behind the newest order) is written.
  std::string windows = "n\n" + std::to_string(sends - 2) + "\n";
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from hourly_sales", windows, 30000), windows) << run.out();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(60000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hourly_sales: compacted "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("compaction failed"), std::string::npos) << r.out;
  std::string gold = f.dir() + "/lake/hourly_sales";
  int data_commits = 0;
  for (const auto& commit : delta::read_commits(gold, 0, delta::latest_version(gold)))
    data_commits += commit.commit_info.value("operation", "") != "OPTIMIZE" && !commit.adds.empty();
  EXPECT_GE(data_commits, 20) << "the window stream should have written many small batches";
  // As for bronze above: at most 3 tiers of fewer than 4, and 3 batches more before a look.
  EXPECT_LE(delta::load_snapshot(gold).files.size(), 18u) << "after " << data_commits << " commits";
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
  // Six late orders, each in a window of its own, each read well after its window was written:
  // the merged files still say which batch each window had seen when written.
  EXPECT_EQ(count_of(check.out, "\nlate "), 6) << check.out;
  EXPECT_EQ(count_of(check.out, ": 1 arrived after the minute was written\n"), 6) << check.out;
}

// [service] target_latency: with interval 0 a stream no longer commits whatever one fetch returned
// but takes what arrived within half the target (bronze) or what was committed while its oldest
// input waited most of the target (silver), so that a steady trickle makes a batch a second or
// two rather than one per send; status and the metrics show the target and each batch's wait.
TEST(Continuous, ATargetLatencyMakesFewerLargerBatchesAndShowsWhatItAchieved) {
  std::string toml = ops_pipeline();
  toml.replace(toml.find("[lake]\n"), 7, "[service]\ntarget_latency = \"2s\"\n\n[lake]\n");
  PipelineFixture f(toml, {{"orders", 2}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s", "--metrics-port", "0"},
                        f.dir());
  ASSERT_TRUE(run.wait_for_output("metrics at http://", 20000)) << run.out() << run.err();
  const int sends = 40;
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < sends; i++) {
    f.produce("orders", order_at(i, "09" + std::to_string(10 + i)), "order_id");
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from orders", "n\n" + std::to_string(sends) + "\n", 30000),
            "n\n" + std::to_string(sends) + "\n") << run.out() << run.err();
  std::string metrics = http_get(port_in(run.out()), "/metrics");
  EXPECT_EQ(metric(metrics, "lakestream_target_latency_seconds{stream=\"read_orders\"}"), 2) << metrics;
  EXPECT_GE(metric(metrics, "lakestream_input_wait_seconds{stream=\"read_orders\"}"), 0) << metrics;
  run.send_signal(SIGTERM);
  EXPECT_EQ(run.wait(60000).exit_code, 0);
  // One batch a second at most (half the target) over the sends, and one more or two at the ends,
  // where one a send (40) is what interval 0 alone takes.
  auto batches = read_progress_log(f.dir(), "read_orders");
  std::string times;
  for (const auto& b : batches) times += b["timestamp"].get<std::string>() + " " + std::to_string(b["numInputRows"].get<int64_t>()) + "\n";
  EXPECT_LE(static_cast<double>(batches.size()), seconds + 3) << "over " << seconds << " s:\n" << times;
  for (const auto& b : batches) {
    if (b["numInputRows"] == 0) continue;  // the first batch records where the stream starts
    ASSERT_TRUE(b["lakestream"].contains("inputWaitMs")) << b.dump();
    // The target, with room for a loaded machine; what it achieved is what status shows.
    EXPECT_LT(b["lakestream"]["inputWaitMs"].get<int64_t>(), 10000) << b.dump();
  }
  // Silver starts a batch when its oldest unread bronze version has waited the target less what a
  // batch takes (engine/downstream_pace.h): a batch about every 2 s rather than every 1 s (half the
  // target after the last, as bronze), and the median wait within the target.
  std::vector<int64_t> silver_waits;
  std::string silver_times;
  for (const auto& b : read_progress_log(f.dir(), "latest_orders")) {
    if (b["numInputRows"] == 0) continue;
    silver_waits.push_back(b["lakestream"]["inputWaitMs"].get<int64_t>());
    silver_times += b["timestamp"].get<std::string>() + " waited " + std::to_string(silver_waits.back()) + " ms\n";
  }
  ASSERT_FALSE(silver_waits.empty());
  EXPECT_LE(static_cast<double>(silver_waits.size()), seconds / 1.5 + 2) << "over " << seconds << " s:\n" << silver_times;
  std::sort(silver_waits.begin(), silver_waits.end());
  EXPECT_LE(silver_waits[silver_waits.size() / 2], 2000) << silver_times;
  CommandResult status = f.lakestream("status");
  EXPECT_NE(status.out.find("         target latency 2000 ms; the oldest input of the last "), std::string::npos)
      << status.out;
  nlohmann::json silver = stream_status(f, "latest_orders");
  EXPECT_EQ(silver["latency"]["targetMs"], 2000) << silver.dump(2);
  EXPECT_GT(silver["latency"]["inputWait"]["batches"].get<int64_t>(), 0) << silver.dump(2);
}

// Two sources: the second ingest stream comes after the first one's downstream streams in
// dependency order, and continuous mode gives each its stage (it once crashed building them).
TEST(Continuous, TwoSourcesRunEachIngestStreamAndItsDownstreamStreams) {
  std::string toml = ops_pipeline() + R"toml(
[sources.refunds]
topic = "refunds"
key = "order_id"

[sources.refunds.schema]
order_id = "bigint"
amount = "decimal(18,2)"

[streams.read_refunds]
kind = "ingest"
source = "refunds"
table = "bronze_refunds"
)toml";
  PipelineFixture f(toml, {{"orders", 2}, {"refunds", 2}});
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "0s"}, f.dir());
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950"), "order_id");
  f.produce("refunds", "{\"order_id\":1,\"amount\":10.00}\n", "order_id");
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from bronze_refunds", "n\n1\n", 20000), "n\n1\n") << run.err();
  EXPECT_EQ(wait_for_query(f, "select count(*) as n from orders", "n\n2\n", 20000), "n\n2\n") << run.err();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(30000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.signal, 0);
}

TEST(Continuous, SigtermFinishesTheBatchInFlightAndNoMore) {
  PipelineFixture f(ops_pipeline("true", 500), {{"orders", 1}});
  std::string events;
  for (int i = 0; i < 20000; i++) events += order_at(i, "0900");
  f.produce("orders", events, "order_id");
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s"}, f.dir());
  ASSERT_TRUE(run.wait_for_output("read_orders: batch 1:", 30000)) << run.out() << run.err();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(30000);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.signal, 0);
  // Stopped early, with whole batches only: the rows are the committed batches', and the next run
  // starts with a new batch, not with a replay of one cut short.
  auto log = read_progress_log(f.dir(), "read_orders");
  ASSERT_FALSE(log.empty());
  EXPECT_LT(log.size(), 40u) << "it stopped before the backlog was done";
  std::string expected = "n\n" + std::to_string(500 * log.size()) + "\n";
  EXPECT_EQ(f.query("select count(*) as n from bronze_orders"), expected);
  CommandResult rest = f.lakestream("run", {"read_orders"});
  ASSERT_EQ(rest.exit_code, 0) << rest.err;
  EXPECT_EQ(rest.out.find("replayed"), std::string::npos) << rest.out;
  EXPECT_EQ(f.query("select count(*) as n, count(distinct \"offset\") as offsets from bronze_orders"),
            "n,offsets\n20000,20000\n");
}

TEST(Continuous, ReadsLikeAServiceLogQuietWhileIdleButForAHeartbeat) {
  PipelineFixture f(ops_pipeline(), {{"orders", 1}});
  f.produce("orders", order_at(1, "0905"), "order_id");
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s", "--heartbeat", "2s"},
                        f.dir());
  ASSERT_TRUE(run.wait_for_output(" alive", 15000)) << run.out() << run.err();
  ASSERT_TRUE(run.wait_for_output(" in the last 2 s", 15000)) << run.out();
  run.send_signal(SIGTERM);
  CommandResult r = run.wait(30000);
  EXPECT_EQ(r.exit_code, 0);
  // Every line starts with the time in UTC; the batches are there, idle runs are not.
  std::istringstream lines(r.out);
  int count = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) == 0) continue;  // a batch line's continuation (a warning)
    EXPECT_TRUE(std::regex_search(line, std::regex("^20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ "))) << line;
    count++;
  }
  EXPECT_GE(count, 4) << r.out;
  EXPECT_NE(r.out.find("Z read_orders: batch 0: 1 in, 1 out to bronze_orders"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("nothing new"), std::string::npos) << r.out;
}

TEST(Continuous, FailuresAreRetriedWithBackoffAndShownInStatus) {
  PipelineFixture f(ops_pipeline("cast(status as integer) = 1"), {{"orders", 1}});
  f.produce("orders", order_at(1, "0905"), "order_id");
  BackgroundProcess run({"run", "-p", f.pipeline_file(), "--continuous", "--interval", "1s"}, f.dir());
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (run.err().find("failure 3 in a row") == std::string::npos && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::string err = run.err();
  EXPECT_NE(err.find("retrying in 1 s (failure 1 in a row)"), std::string::npos) << err;
  EXPECT_NE(err.find("retrying in 2 s (failure 2 in a row)"), std::string::npos) << err;
  EXPECT_NE(err.find("retrying in 4 s (failure 3 in a row)"), std::string::npos) << err;
  nlohmann::json gold = stream_status(f, "hourly_sales");
  EXPECT_EQ(gold["health"], "failing");
  EXPECT_NE(gold["lastError"].get<std::string>().find("Could not convert string 'placed'"), std::string::npos);
  run.send_signal(SIGINT);
  CommandResult r = run.wait(30000);
  EXPECT_EQ(r.exit_code, 0) << "a stop request during the backoff stops at once";
}

}  // namespace
}  // namespace lakestream::testing
