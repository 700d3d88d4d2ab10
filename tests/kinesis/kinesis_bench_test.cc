// `lakestream bench --workload kinesis` against the emulator: both steps run over every event
// put (the bench itself refuses a count that differs), and the ratio target is reported.
#include "kinesis/kinesis_fixture.h"

namespace lakestream::testing {
namespace {

TEST(KinesisBench, TheWorkloadReadsEveryEventByBothReaders) {
  Kinesalite kinesis;
  TempDir dir;
  CommandResult r = run_lakestream({"bench", "--workload", "kinesis", "--kinesis-endpoint", kinesis.endpoint(),
                                    "--kinesis-events", "3000", "--kinesis-shards", "2", "--dir", dir / "bench",
                                    "--json", dir / "bench.json"},
                                   dir.path());
  // 0: every target met; 1: one missed (said, not a failure of the run).
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.out << r.err;
  auto result = nlohmann::json::parse(std::ifstream(dir / "bench.json"));
  std::map<std::string, int64_t> events;
  for (const auto& m : result["measurements"]) events[m["name"].get<std::string>()] = m["events"].get<int64_t>();
  EXPECT_EQ(events, (std::map<std::string, int64_t>{{"ingest", 3000}, {"kinesis_limit", 3000}})) << result.dump(1);
  ASSERT_EQ(result["targets"].size(), 1u) << result.dump(1);
  EXPECT_EQ(result["targets"][0]["name"], "ingest_vs_kinesis");
  EXPECT_GT(result["targets"][0]["value"].get<double>(), 0.0);
}

}  // namespace
}  // namespace lakestream::testing
