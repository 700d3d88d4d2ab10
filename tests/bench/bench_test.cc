// `lakestream bench` on a small feed: it runs every step to the end and its JSON is well formed
// (names, counts, positive times and memory, every target stated). Not how fast the machine is.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "support/test_support.h"

namespace lakestream::testing {
namespace {

TEST(Bench, SmallRunWritesWellFormedFigures) {
  TempDir dir;
  CommandResult r = run_lakestream({"bench", "--events", "20000", "--partitions", "4", "--silver-keys", "1000,10000",
                                    "--max-offsets-per-trigger", "5000", "--dir", dir / "bench", "--json",
                                    dir / "bench.json"},
                                   dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("kafka_limit"), std::string::npos) << r.out;

  std::ifstream in(dir / "bench.json");
  nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["events"], 20000);
  EXPECT_EQ(j["partitions"], 4);
  EXPECT_GT(j["feed_bytes"].get<int64_t>(), 20000 * 100);  // about 130 bytes an event

  std::set<std::string> names;
  for (const auto& m : j["measurements"]) {
    std::string name = m["name"];
    names.insert(name);
    EXPECT_GT(m["seconds"].get<double>(), 0) << name;
    EXPECT_GT(m["peak_rss_mib"].get<double>(), 1) << name;
    EXPECT_FALSE(m["what"].get<std::string>().empty()) << name;
    if (m["events"].get<int64_t>() > 0)
      EXPECT_NEAR(m["events_per_second"].get<double>(), m["events"].get<double>() / m["seconds"].get<double>(), 1e-6 * m["events_per_second"].get<double>()) << name;
  }
  EXPECT_EQ(names, (std::set<std::string>{"kafka_limit", "ingest", "ingest_capped", "ingest_small", "gold",
                                          "silver_1k", "silver_10k", "batch_limit", "shop", "idle_run"}));
  std::set<std::string> targets;
  for (const auto& t : j["targets"]) {
    targets.insert(t["name"].get<std::string>());
    EXPECT_TRUE(t["met"].is_boolean());
    EXPECT_GT(t["value"].get<double>(), 0) << t["name"];
  }
  EXPECT_EQ(targets, (std::set<std::string>{"ingest_vs_kafka", "gold_rate", "gold_vs_batch", "silver_rate", "idle_run",
                                            "ingest_rss"}));
}

TEST(Bench, RefusesToWipeAFolderItDidNotMake) {
  TempDir dir;
  write_text(dir / "mine/data.txt", "keep me");
  CommandResult r = run_lakestream({"bench", "--events", "10", "--dir", dir / "mine"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not a lakestream bench folder"), std::string::npos) << r.err;
  EXPECT_EQ(list_dir_count(dir / "mine"), 1);
}

}  // namespace
}  // namespace lakestream::testing
