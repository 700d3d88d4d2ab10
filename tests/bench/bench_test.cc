// `lakestream bench` on a small feed: it runs every step to the end and its JSON is well formed
// (names, counts, positive times and memory, every target stated). Not how fast the machine is.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <set>

#include "support/test_support.h"

namespace lakestream::testing {
namespace {

TEST(Bench, SmallRunWritesWellFormedFigures) {
  TempDir dir;
  CommandResult r = run_lakestream({"bench", "--events", "20000", "--partitions", "4", "--silver-keys", "1000,10000",
                                    "--max-offsets-per-trigger", "5000", "--freshness-rates", "2000", "--freshness-seconds", "2",
                                    "--upsert-keys", "20000", "--upsert-rate", "1000", "--upsert-batches", "3",
                                    "--dir", dir / "bench", "--json",
                                    dir / "bench.json"},
                                   dir.path());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  ASSERT_NE(r.out.find("kafka_limit"), std::string::npos) << r.out << r.err;

  std::ifstream in(dir / "bench.json");
  nlohmann::json j = nlohmann::json::parse(in);
  // Exit 1 exactly when a target was missed (how fast this machine is, is not checked here),
  // and the missed ones are named.
  bool all_met = true;
  for (const auto& t : j["targets"]) {
    if (t["met"]) continue;
    all_met = false;
    std::string name = t["workload"].get<std::string>() + "/" + t["name"].get<std::string>();
    EXPECT_NE(r.err.find(name), std::string::npos) << name << " missed but not named:\n" << r.err;
  }
  EXPECT_EQ(j["all_targets_met"], all_met);
  EXPECT_EQ(r.exit_code, all_met ? 0 : 1);
  EXPECT_EQ(j["events"], 20000);
  EXPECT_EQ(j["partitions"], 4);
  EXPECT_GT(j["feed_bytes"].get<int64_t>(), 20000 * 100);  // about 130 bytes an event

  std::set<std::string> names;
  for (const auto& m : j["measurements"]) {
    std::string name = m["workload"].get<std::string>() + "/" + m["name"].get<std::string>();
    names.insert(name);
    EXPECT_GT(m["seconds"].get<double>(), 0) << name;
    EXPECT_GT(m["peak_rss_mib"].get<double>(), 1) << name;
    EXPECT_FALSE(m["what"].get<std::string>().empty()) << name;
    if (m["events"].get<int64_t>() > 0) {
      EXPECT_NEAR(m["events_per_second"].get<double>(), m["events"].get<double>() / m["seconds"].get<double>(),
                  1e-6 * m["events_per_second"].get<double>())
          << name;
    }
  }
  EXPECT_EQ(names, (std::set<std::string>{"shop/kafka_limit", "shop/ingest", "shop/ingest_capped", "shop/ingest_small",
                                          "shop/gold", "shop/silver_1k", "shop/silver_10k", "shop/batch_limit",
                                          "shop/end_to_end", "shop/shop", "shop/idle_run", "shop/watermarks_peer",
                                          "shop/workers_1", "shop/workers_2", "shop/workers_4",
                                          "clickstream/kafka_limit",
                                          "clickstream/ingest", "clickstream/gold", "clickstream/silver",
                                          "clickstream/batch_limit", "clickstream/end_to_end",
                                          "clickstream/peer_aggregator", "clickstream/idle_run",
                                          "clickstream/watermarks_peer", "wide/kafka_limit", "wide/ingest", "wide/gold",
                                          "wide/silver", "wide/batch_limit", "wide/end_to_end", "wide/idle_run",
                                          "wide/watermarks_peer", "cdc/kafka_limit", "cdc/ingest", "cdc/silver",
                                          "cdc/batch_limit", "cdc/end_to_end", "cdc/idle_run", "cdc/watermarks_peer",
                                          "upserts/ingest", "upserts/silver_copy_on_write", "upserts/silver_merge_on_read", "upserts/silver_change_feed",
                                          "freshness/bronze_2k", "freshness/silver_2k", "freshness/gold_2k"}));
  // Freshness: every event sent is in bronze and silver, with its latency from Kafka; windows closed
  // in gold, with theirs from the event that closed them (4,000 events span 144 s of event time:
  // with a minute's window and delay, the first minute closes).
  for (const auto& m : j["measurements"]) {
    if (m["workload"] != "freshness") continue;
    EXPECT_EQ(m["events"], 4000) << m;
    double p50 = m["latency_ms"]["p50"], p99 = m["latency_ms"]["p99"], max = m["latency_ms"]["max"];
    EXPECT_GT(p50, 0) << m;
    EXPECT_LE(p50, p99) << m;
    EXPECT_LE(p99, max) << m;
    EXPECT_GT(m["latency_ms"]["samples"].get<int64_t>(), 0) << m;
  }
  std::set<std::string> targets;
  for (const auto& t : j["targets"]) {
    targets.insert(t["workload"].get<std::string>() + "/" + t["name"].get<std::string>());
    EXPECT_TRUE(t["met"].is_boolean());
    EXPECT_GT(t["value"].get<double>(), 0) << t["name"];
  }
  EXPECT_EQ(targets, (std::set<std::string>{"shop/ingest_vs_kafka", "shop/gold_vs_batch", "shop/silver_vs_ingest",
                                            "shop/end_to_end_vs_kafka", "shop/gold_rate", "shop/idle_run",
                                            "shop/idle_vs_watermarks", "clickstream/idle_vs_watermarks",
                                            "wide/idle_vs_watermarks",
                                            "shop/ingest_rss", "clickstream/ingest_vs_kafka",
                                            "clickstream/gold_vs_batch", "clickstream/silver_vs_ingest",
                                            "clickstream/end_to_end_vs_kafka", "clickstream/end_to_end_vs_peer",
                                            "wide/ingest_vs_kafka", "wide/gold_vs_batch", "wide/silver_vs_ingest",
                                            "wide/end_to_end_vs_kafka", "cdc/ingest_vs_kafka", "cdc/silver_vs_batch",
                                            "cdc/silver_vs_ingest", "cdc/end_to_end_vs_kafka", "cdc/idle_vs_watermarks",
                                            "upserts/bytes_vs_batch",
                                            "freshness/bronze_p99_2k", "freshness/silver_p99_2k"}));

  // Each workload's tables, written by its end-to-end run, are right (not the shop's: its silver
  // tables are seeded with keys bronze never had, for the MERGE's sake): check finds no PROBLEM,
  // and bronze holds every event (none quarantined: every timestamp form, nested members).
  for (const auto& [pipeline, bronze] : {std::pair<std::string, std::string>{"clickstream", "bronze_clicks has 20000 events"},
                                         {"wide", "bronze_tracker has 2500 events"},
                                         {"cdc", "bronze_customers has 20000 events"},
                                         {"freshness_2k", "bronze_fresh has 4000 events"}}) {
    CommandResult check = run_lakestream({"check", "-p", dir / ("bench/" + pipeline + ".toml")}, dir.path());
    EXPECT_EQ(check.exit_code, 0) << pipeline << "\n" << check.out << check.err;
    EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
    EXPECT_NE(check.out.find(bronze + ", each offset once"), std::string::npos) << check.out;
  }
  // Random-key upserts: each silver stream merged the 3 bronze batches in 3 commits; copy-on-write
  // rewrote the seeded file each batch, merge-on-read wrote the batch's rows and a vector (the
  // bench itself fails when the two tables differ in a row).
  for (const auto& m : j["measurements"]) {
    if (m["workload"] != "upserts" || m["name"] == "ingest") continue;
    EXPECT_EQ(m["batches"], 3) << m;
    EXPECT_GT(m["batch_bytes"].get<int64_t>(), 0) << m;
    if (m["name"] == "silver_copy_on_write") {
      EXPECT_GT(m["bytes_written"].get<int64_t>(), 3 * m["batch_bytes"].get<int64_t>()) << m;
      EXPECT_EQ(m["vector_bytes"], 0) << m;
    } else {
      EXPECT_LE(m["bytes_written"].get<int64_t>(), 3 * m["batch_bytes"].get<int64_t>()) << m;
      EXPECT_GT(m["vector_bytes"].get<int64_t>(), 0) << m;
    }
    // Only the stream with the feed on writes change data: a preimage and a postimage per update.
    if (m["name"] == "silver_change_feed") {
      EXPECT_GT(m["change_bytes"].get<int64_t>(), 0) << m;
    } else {
      EXPECT_EQ(m["change_bytes"], 0) << m;
    }
  }

  // The change events' silver is the replay of the change log (1000 customers, some deleted).
  CommandResult cdc = run_lakestream({"check", "-p", dir / "bench/cdc.toml"}, dir.path());
  EXPECT_NE(cdc.out.find("ok      customers has the newest state of all"), std::string::npos) << cdc.out;
  EXPECT_NE(cdc.out.find("customers deleted from customers"), std::string::npos) << cdc.out;
}

TEST(Bench, RefusesToWipeAFolderItDidNotMake) {
  TempDir dir;
  write_text(dir / "mine/data.txt", "keep me");
  CommandResult r = run_lakestream({"bench", "--events", "10", "--dir", dir / "mine"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not a lakestream bench folder"), std::string::npos) << r.err;
  EXPECT_EQ(list_dir_count(dir / "mine"), 1);
}

// A file of /proc, or "" once its process is gone (it may end between the listing and the read).
std::string proc_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The pid of the process whose command line holds every one of `words`, or -1.
int process_with(const std::vector<std::string>& words) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = proc_text(entry.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    bool all = !cmdline.empty();
    for (const auto& w : words) all = all && cmdline.find(w) != std::string::npos;
    if (all) return std::stoi(name);
  }
  return -1;
}

// Whether `pid` still runs (a zombie no one has reaped yet has ended).
bool still_running(int pid) {
  std::string stat = proc_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  size_t paren = stat.rfind(')');
  return paren == std::string::npos || paren + 2 >= stat.size() || stat[paren + 2] != 'Z';
}

// A bench killed with -9 in its service step takes the service it started with it: a service
// left running would hold its checkpoints' locks and a core until someone found it.
TEST(Bench, AKilledBenchLeavesNoServiceRunning) {
  TempDir dir;
  std::string folder = dir / "bench";
  BackgroundProcess bench({"bench", "-w", "service", "--service-rates", "1000", "--service-seconds", "60", "--dir", folder},
                          dir.path());
  int service = -1;
  for (int i = 0; i < 600 && service < 0; i++) {
    service = process_with({folder, "run", "--continuous"});
    if (service < 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GT(service, 0) << "the bench's service step never started:\n" << bench.err();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // well into its batches
  bench.send_signal(SIGKILL);
  bench.wait(10000);
  bool ended = false;
  for (int i = 0; i < 300 && !ended; i++) {
    ended = !still_running(service);
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!ended) kill(service, SIGKILL);
  EXPECT_TRUE(ended) << "the service the killed bench started (pid " << service << ") still ran 30 s later";
}

}  // namespace
}  // namespace lakestream::testing
