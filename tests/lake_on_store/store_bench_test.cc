// `lakestream bench --workload store` against each emulator on a small feed: ingest and gold with
// the lake on the store and on the local disk, the store's requests counted per batch at two batch
// sizes, and nothing of the bench left on the store. Not how fast the store is.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <map>

#include "lake_on_store/store_lake.h"

namespace lakestream::testing {
namespace {

// The store's credentials in the variables users set (the bench's pipelines name none).
class StoreVariables {
 public:
  explicit StoreVariables(const StoreEmulator& store) {
    if (store.kind() == Emulator::S3rver)
      names_ = {{"AWS_ACCESS_KEY_ID", "S3RVER"}, {"AWS_SECRET_ACCESS_KEY", "S3RVER"}, {"AWS_REGION", "us-east-1"},
                {"AWS_ENDPOINT_URL_S3", store.endpoint()}};
    else
      names_ = {{"AZURE_STORAGE_ACCOUNT_NAME", Azurite::kAccount}, {"AZURE_STORAGE_ACCOUNT_KEY", Azurite::kKey},
                {"AZURE_STORAGE_ENDPOINT", store.endpoint()}};
    for (const auto& [name, value] : names_) setenv(name.c_str(), value.c_str(), 1);
  }
  ~StoreVariables() {
    for (const auto& [name, value] : names_) unsetenv(name.c_str());
  }

 private:
  std::map<std::string, std::string> names_;
};

class StoreBench : public ::testing::TestWithParam<Emulator> {};

TEST_P(StoreBench, MeasuresTheLakeOnTheStoreAgainstTheLocalDisk) {
  StoreEmulator store(GetParam());
  StoreVariables variables(store);
  TempDir dir;
  CommandResult r = run_lakestream({"bench", "--workload", "store", "--store", store.url("bench"), "--events", "20000",
                                    "--partitions", "4", "--dir", dir / "bench", "--json", dir / "bench.json"},
                                   dir.path());
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  std::ifstream in(dir / "bench.json");
  nlohmann::json j = nlohmann::json::parse(in);

  // 2,000 events (a tenth of --events): 4 batches of 500 and 16 of 125.
  std::map<std::string, nlohmann::json> steps;
  for (const auto& m : j["measurements"]) steps[m["name"].get<std::string>()] = m;
  ASSERT_EQ(steps.size(), 5u) << j.dump(2);
  for (const char* local : {"ingest_local", "gold_local"}) {
    ASSERT_TRUE(steps.count(local)) << local;
    EXPECT_FALSE(steps[local].contains("store_requests")) << local << " wrote to the local disk only";
  }
  std::map<std::string, int> batches = {{"ingest_store", 4}, {"ingest_store_small", 16}};
  for (const char* remote : {"ingest_store", "gold_store", "ingest_store_small"}) {
    ASSERT_TRUE(steps.count(remote)) << remote;
    const auto& m = steps[remote];
    EXPECT_EQ(m["events"], 2000) << remote;
    ASSERT_TRUE(m.contains("store_requests")) << remote;
    // Every batch lists the log and puts at least a data file and a commit.
    EXPECT_GE(m["store_requests"].get<int64_t>(), 3 * m["batches"].get<int64_t>()) << remote;
    if (batches.count(remote)) {
      EXPECT_EQ(m["batches"], batches[remote]) << remote;
    }
    EXPECT_GT(m["store_mb_sent"].get<double>(), 0) << remote << " sent no data file or state to the store";
  }
  ASSERT_EQ(j["targets"].size(), 1u);
  EXPECT_EQ(j["targets"][0]["name"], "requests_per_batch");
  EXPECT_EQ(j["all_targets_met"], j["targets"][0]["met"]);
  EXPECT_EQ(r.exit_code, j["all_targets_met"].get<bool>() ? 0 : 1);

  EXPECT_TRUE(storage::open_store(store.url("bench"), store.settings())->list("").empty())
      << "the bench left its tables on the store";
}

INSTANTIATE_TEST_SUITE_P(Emulators, StoreBench, ::testing::Values(Emulator::S3rver, Emulator::Azurite),
                         [](const auto& info) { return std::string(emulator_name(info.param)); });

}  // namespace
}  // namespace lakestream::testing
