// Ingest workers that share a topic through a Kafka consumer group ([kafka] group): several
// `lakestream run` processes of one pipeline file split the partitions, commit bronze with one
// txn per partition, and take over a dead worker's partitions after its session times out. The
// tables must equal those of one process reading everything, with each offset once.
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "ops_pipeline.h"
#include "support/test_settings.h"

namespace lakestream::testing {
namespace {


// Orders in event-time order over five hours, a fifth of them updated later, some sent twice.
// The window stream upserts hourly totals with a watermark longer than the whole span, so that no
// event is late however the workers' batches interleave: gold depends on the events only.
std::string workers_pipeline(const std::string& tables, const std::string& checkpoints, bool group,
                             int session_timeout_ms = 6000) {
  return std::string("[kafka]\nbootstrap = \"@BOOTSTRAP@\"\n") + (group ? "group = \"shop\"\n" : "") +
         "[kafka.properties]\n\"session.timeout.ms\" = " + std::to_string(session_timeout_ms) +
         "\n\"heartbeat.interval.ms\" = " + std::to_string(session_timeout_ms / 10) + "\n\n"
         "[lake]\ntables = \"" + tables + "\"\ncheckpoints = \"" + checkpoints + "\"\n\n"
         "[sources.orders]\ntopic = \"orders\"\nkey = \"order_id\"\nmax_offsets_per_trigger = 2000\n"
         "[sources.orders.schema]\norder_id = \"bigint\"\ncustomer_id = \"string\"\nstatus = \"string\"\n"
         "amount = \"decimal(18,2)\"\nevent_time = \"timestamp\"\n\n"
         "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\npartition_by = [\"dt\"]\n"
         "[streams.read_orders.derived]\ndt = \"date(event_time)\"\n\n"
         "[streams.latest_orders]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"orders\"\nkey = [\"order_id\"]\n"
         "order_by = \"event_time\"\n\n"
         "[streams.hourly_sales]\nkind = \"window\"\nfrom = \"bronze_orders\"\ntable = \"hourly_sales\"\n"
         "event_time = \"event_time\"\nwatermark = \"2 days\"\nwindow = \"1 hour\"\nwindow_column = \"hour\"\n"
         "output = \"update\"\n[streams.hourly_sales.aggregates]\norders = \"count(*)\"\nrevenue = \"sum(amount)\"\n";
}

// `count` events as JSON lines, the i-th at 2026-10-01 00:00 plus i * 5 h / total.
std::string orders(int64_t first, int64_t count, int64_t total, std::mt19937_64& random) {
  std::string lines;
  for (int64_t i = first; i < first + count; i++) {
    int64_t seconds = i * 5 * 3600 / total;
    char time[64];  // room for any int64 fields, though these are short
    std::snprintf(time, sizeof time, "2026-10-01T%02lld:%02lld:%02lldZ", static_cast<long long>(seconds / 3600),
                  static_cast<long long>(seconds / 60 % 60), static_cast<long long>(seconds % 60));
    bool update = i % 5 == 4;
    int64_t id = update ? i - 3 : i;  // an order placed three events before
    std::string line = "{\"order_id\":" + std::to_string(id) + ",\"customer_id\":\"C-" + std::to_string(id % 97) +
                       "\",\"status\":\"" + (update ? "shipped" : "placed") + "\",\"amount\":" +
                       std::to_string(random() % 20000 / 100) + "." + std::to_string(10 + random() % 90) +
                       ",\"event_time\":\"" + time + "\"}\n";
    lines += line;
    if (random() % 50 == 0) lines += line;  // sent twice
  }
  return lines;
}

int64_t count_of(PipelineFixture& f, const std::string& pipeline, const std::string& sql) {
  CommandResult r = run_lakestream({"query", "-p", pipeline, "--format", "csv", sql}, f.dir());
  if (r.exit_code != 0) return -1;  // no table yet
  return std::stoll(r.out.substr(r.out.find('\n') + 1));
}

std::string query(PipelineFixture& f, const std::string& pipeline, const std::string& sql) {
  CommandResult r = run_lakestream({"query", "-p", pipeline, "--format", "csv", sql}, f.dir());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The longest time a partition went without a bronze commit from the first send on, from the
// commits' timestamps: how long a dead worker's partitions (or all, while the group rebalances)
// stayed unread.
double longest_unread_seconds(const std::string& bronze, int64_t since_ms) {
  std::map<int32_t, std::vector<int64_t>> commits;
  for (const auto& entry : std::filesystem::directory_iterator(bronze + "/_delta_log")) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::string line;
    int64_t at = 0;
    std::vector<int32_t> partitions;
    while (std::getline(in, line)) {
      auto action = nlohmann::json::parse(line);
      if (action.contains("commitInfo")) at = action["commitInfo"].value("timestamp", int64_t{0});
      if (action.contains("txn")) {
        std::string app = action["txn"]["appId"];
        partitions.push_back(std::stoi(app.substr(app.rfind('-') + 1)));
      }
    }
    for (int32_t p : partitions) commits[p].push_back(at);
  }
  int64_t longest = 0;
  for (auto& [p, times] : commits) {
    times.push_back(since_ms);
    std::sort(times.begin(), times.end());
    for (size_t i = 1; i < times.size(); i++) longest = std::max(longest, times[i] - times[i - 1]);
  }
  return longest / 1000.0;
}

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void kill_and_replace_workers(int64_t total, int sends) {
  uint64_t seed = std::getenv("LAKESTREAM_WORKERS_SEED") ? std::stoull(std::getenv("LAKESTREAM_WORKERS_SEED"))
                                                           : std::random_device{}();
  SCOPED_TRACE("LAKESTREAM_WORKERS_SEED=" + std::to_string(seed));
  std::mt19937_64 random(seed);
  // A million events are spread over more partitions, as a real topic of that size would be.
  PipelineFixture f(workers_pipeline("lake", "checkpoints", true), {{"orders", total > 100'000 ? 48 : 6}});
  std::vector<std::string> worker_args{"run", "-p", f.pipeline_file(), "--continuous", "--interval", "200ms"};
  std::vector<std::unique_ptr<BackgroundProcess>> workers;
  for (int i = 0; i < 3; i++) workers.push_back(std::make_unique<BackgroundProcess>(worker_args, f.dir()));

  int kills = 0;
  int64_t expected = 0;
  int64_t first_send_ms = now_ms();
  int64_t per_send = total / sends;
  for (int send = 0; send < sends; send++) {
    std::string lines = orders(send * per_send, per_send, total, random);
    expected += std::count(lines.begin(), lines.end(), '\n');
    f.produce("orders", lines, "order_id");
    if (random() % 3 == 0) {
      // kill -9 at a random moment, and a new worker joins a moment later
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 1500));
      auto& victim = workers[random() % workers.size()];
      victim->send_signal(SIGKILL);
      victim->wait(10000);
      kills++;
      std::this_thread::sleep_for(std::chrono::milliseconds(random() % 1000));
      victim = std::make_unique<BackgroundProcess>(worker_args, f.dir());
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(300 + random() % 700));
    }
  }
  std::string bronze_count = "SELECT count(*) FROM bronze_orders";
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (count_of(f, f.pipeline_file(), bronze_count) < expected && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(count_of(f, f.pipeline_file(), bronze_count), expected) << "the workers did not catch up";
  for (auto& w : workers) w->send_signal(SIGTERM);
  for (auto& w : workers) {
    CommandResult ended = w->wait(60000);
    EXPECT_NE(ended.signal, SIGKILL);
    EXPECT_EQ(ended.err.find("failed"), std::string::npos) << ended.err;
  }
  // The downstream streams catch up in one more run, once the session of the worker killed last
  // has timed out: until then the group may keep partition 0 (and the single-writer streams)
  // with it, and the run leaves them to it, as it should.
  std::this_thread::sleep_for(std::chrono::seconds(7));
  CommandResult last = f.lakestream("run");
  ASSERT_EQ(last.exit_code, 0) << last.out << last.err;
  EXPECT_EQ(last.out.find("runs on the worker that holds partition 0"), std::string::npos) << last.out;

  EXPECT_EQ(count_of(f, f.pipeline_file(), bronze_count), expected) << kills << " kills";
  EXPECT_EQ(count_of(f, f.pipeline_file(),
                     "SELECT count(*) FROM (SELECT partition, \"offset\" FROM bronze_orders GROUP BY ALL HAVING count(*) > 1)"),
            0) << "an offset is in bronze twice";

  // One process reading everything, into a lake of its own: the same tables.
  std::string single = f.dir() + "/single.toml";
  std::string toml = workers_pipeline("single_lake", "single_checkpoints", false);
  toml.replace(toml.find("@BOOTSTRAP@"), 11, f.broker().bootstrap());
  write_text(single, toml);
  CommandResult one = run_lakestream({"run", "-p", single}, f.dir());
  ASSERT_EQ(one.exit_code, 0) << one.err;
  // Silver's rows with their lineage: of identical copies the newest is the row, whatever the
  // batching, so the workers' table names the very positions the single process's does.
  for (const std::string sql :
       {"SELECT partition, \"offset\", order_id, status, amount, event_time FROM bronze_orders ORDER BY 1, 2",
        "SELECT order_id, customer_id, status, amount, event_time, partition, \"offset\" FROM orders ORDER BY 1",
        "SELECT hour, orders, revenue FROM hourly_sales ORDER BY 1"})
    EXPECT_EQ(query(f, f.pipeline_file(), sql), query(f, single, sql)) << sql;

  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
  EXPECT_NE(check.exit_code, 1) << check.out << check.err;

  double unread = longest_unread_seconds(f.dir() + "/lake/bronze_orders", first_send_ms);
  std::printf("workers: %lld events, %d kills; the longest a partition went unread: %.1f s (session timeout 6 s)\n",
              static_cast<long long>(expected), kills, unread);
  EXPECT_LT(unread, 60) << "a dead worker's partitions were not taken over";
}

TEST(Workers, ThreeWorkersKilledAtRandomWriteEachOffsetOnceAndTheTablesOfOne) {
  kill_and_replace_workers(long_tests() ? 1'000'000 : 30'000, long_tests() ? 60 : 24);
}

TEST(Workers, TwoPlainRunsSplitTheTopicAndTogetherReadItOnce) {
  std::mt19937_64 random(7);
  PipelineFixture f(workers_pipeline("lake", "checkpoints", true), {{"orders", 4}});
  std::string lines = orders(0, 2000, 2000, random);
  f.produce("orders", lines, "order_id");
  std::vector<std::string> args{"run", "-p", f.pipeline_file(), "read_orders"};
  BackgroundProcess a(args, f.dir());
  BackgroundProcess b(args, f.dir());
  EXPECT_EQ(a.wait(120000).exit_code, 0) << a.err();
  EXPECT_EQ(b.wait(120000).exit_code, 0) << b.err();
  int64_t expected = std::count(lines.begin(), lines.end(), '\n');
  EXPECT_EQ(count_of(f, f.pipeline_file(), "SELECT count(DISTINCT (partition, \"offset\")) FROM bronze_orders"), expected);
  EXPECT_EQ(count_of(f, f.pipeline_file(), "SELECT count(*) FROM bronze_orders"), expected);
  // Each says which partitions it held, and so does status; the lag counts from bronze's txns.
  EXPECT_NE((a.out() + b.out()).find("read_orders [partitions "), std::string::npos) << a.out() << b.out();
  nlohmann::json status = stream_status(f, "read_orders");
  ASSERT_TRUE(status.contains("workers")) << status.dump(2);
  EXPECT_GE(status["workers"].size(), 1u);
  for (const auto& p : status["kafkaLag"]) EXPECT_EQ(p["lag"], 0) << status.dump(2);
  CommandResult text = f.lakestream("status");
  EXPECT_NE(text.out.find(" held partition"), std::string::npos) << text.out;
}

int occurrences(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
  return n;
}

// Two continuous workers on a topic with nothing in it: an idle stream prints nothing (no batch
// that finds its empty partitions "already committed" every cycle), and the worker without
// partition 0 says once where latest_orders runs. Then events, one worker stopped, more events:
// status marks the stopped worker as stopped and names the worker that runs the single writers.
TEST(Workers, IdleContinuousWorkersPrintNothingAndStatusTellsAStoppedWorker) {
  std::mt19937_64 random(11);
  PipelineFixture f(workers_pipeline("lake", "checkpoints", true, 3000), {{"orders", 2}});
  std::vector<std::string> args{"run", "-p", f.pipeline_file(), "--continuous", "--interval", "200ms"};
  BackgroundProcess a(args, f.dir());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  BackgroundProcess b(args, f.dir());
  std::this_thread::sleep_for(std::chrono::seconds(8));
  std::string idle = a.out() + b.out();
  EXPECT_EQ(idle.find("batch -1"), std::string::npos) << idle;
  EXPECT_EQ(idle.find(": batch "), std::string::npos) << "an idle stream prints nothing: " << idle;
  // Each worker tells where latest_orders runs only when that changes (a worker that started
  // alone may first have held nothing, then partition 0); in the end one of them runs it and the
  // other says so.
  const std::string elsewhere = "latest_orders: runs on the worker that holds partition 0 of orders (consumer group shop.read_orders)";
  int telling_elsewhere = 0;
  for (const std::string& out : {a.out(), b.out()}) {
    std::vector<std::string> told;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
      if (line.find(" latest_orders: runs on ") != std::string::npos) told.push_back(line.substr(line.find(' ') + 1));
    for (size_t i = 1; i < told.size(); i++) EXPECT_NE(told[i], told[i - 1]) << "told again unchanged: " << out;
    telling_elsewhere += !told.empty() && told.back() == elsewhere;
  }
  EXPECT_EQ(telling_elsewhere, 1) << idle;

  f.produce("orders", orders(0, 200, 400, random), "order_id");
  ASSERT_TRUE(a.wait_for_output("read_orders [partitions ", 30000) || b.wait_for_output("read_orders [partitions ", 30000));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  bool a_logged = a.out().find("read_orders [partitions ") != std::string::npos;
  BackgroundProcess& stopped = a_logged ? a : b;
  BackgroundProcess& going_on = a_logged ? b : a;
  stopped.send_signal(SIGTERM);
  EXPECT_EQ(stopped.wait(30000).exit_code, 0) << stopped.err();
  std::this_thread::sleep_for(std::chrono::seconds(5));  // the group gives its partitions to the other
  f.produce("orders", orders(200, 200, 400, random), "order_id");
  ASSERT_TRUE(going_on.wait_for_output("read_orders [partitions 0,1]", 30000)) << going_on.out();
  CommandResult status = f.lakestream("status");
  EXPECT_EQ(occurrences(status.out, " stopped: it held partition"), 1) << status.out;
  EXPECT_NE(status.out.find(" has held "), std::string::npos) << status.out;
  EXPECT_EQ(occurrences(status.out, "         runs on worker "), 2) << status.out;  // latest_orders, hourly_sales
  EXPECT_NE(status.out.find("(it holds partition 0 of orders)"), std::string::npos) << status.out;
  EXPECT_EQ(status.out.find("last batch -1"), std::string::npos) << status.out;
  going_on.send_signal(SIGTERM);
  EXPECT_EQ(going_on.wait(30000).exit_code, 0) << going_on.err();
}

// A worker killed at each step of its commit protocol, then run again: every offset once, in
// bronze or in quarantine.
TEST(Workers, AWorkerKilledAtEveryCommitStepLosesNothingAndWritesNothingTwice) {
  // Each point in the first or the second batch (the whole grid takes twice as long and finds
  // nothing more: a batch's commits do not depend on the batch before).
  for (const auto& [point, hit] : std::vector<std::pair<std::string, int>>{{"after_kafka_read", 1},
                                                                           {"after_data_files", 2},
                                                                           {"after_quarantine_commit", 1},
                                                                           {"before_delta_commit", 2},
                                                                           {"after_delta_commit", 1},
                                                                           {"after_delta_commit", 2}}) {
    {
      SCOPED_TRACE(point + ":" + std::to_string(hit));
      std::mt19937_64 random(hit);
      PipelineFixture f(workers_pipeline("lake", "checkpoints", true), {{"orders", 3}});
      // Records that do not fit the schema go to quarantine, in both batches.
      std::string bad;
      for (int i = 0; i < 15; i++) bad += "{\"order_id\":\"not a number " + std::to_string(i) + "\"}\n";
      std::string lines = bad + orders(0, 3000, 3000, random) + bad;
      f.produce("orders", lines, "order_id");
      int64_t sent = std::count(lines.begin(), lines.end(), '\n');
      CommandResult crashed = f.lakestream("run", {"read_orders"}, {"LAKESTREAM_FAULT=" + point + ":" + std::to_string(hit)});
      EXPECT_EQ(crashed.signal, SIGKILL) << crashed.out << crashed.err;
      CommandResult rerun = f.lakestream("run");
      ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
      std::string all = "(SELECT partition, \"offset\" FROM bronze_orders UNION ALL "
                        "SELECT partition, \"offset\" FROM bronze_orders_quarantine)";
      EXPECT_EQ(count_of(f, f.pipeline_file(), "SELECT count(*) FROM " + all), sent);
      EXPECT_EQ(count_of(f, f.pipeline_file(), "SELECT count(DISTINCT (partition, \"offset\")) FROM " + all), sent);
      EXPECT_EQ(count_of(f, f.pipeline_file(), "SELECT count(*) FROM bronze_orders_quarantine"), 30);
      CommandResult check = f.lakestream("check");
      EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
    }
  }
}

}  // namespace
}  // namespace lakestream::testing
