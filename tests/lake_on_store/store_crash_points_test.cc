// The crash-point suite of tests/faults with the tables on each emulator: a crash at every named
// point of the commit protocols, in every stream kind; after a rerun every table holds exactly
// what an uninterrupted local run wrote (nothing missing, nothing twice) and check says the same.
// CI size: 20,000 events in 30 sends (LAKESTREAM_STORE_CRASH_EVENTS sets another count; the
// local suite runs 100,000).
#include <cstdio>
#include <map>
#include <set>

#include "faults/messy_lake.h"
#include "lake_on_store/store_lake.h"

namespace lakestream::testing {
namespace {

class CrashPointsOnStore : public ::testing::TestWithParam<Emulator> {};

TEST_P(CrashPointsOnStore, EveryPointInEveryStreamKindChangesNothing) {
  const int combos = static_cast<int>(crash_points().size() * stream_of_each_kind().size());
  MessyStream stream = messy_stream(env_count("LAKESTREAM_STORE_CRASH_EVENTS", 20000), combos, 7);
  ASSERT_GT(stream.late, 0);
  ASSERT_GT(stream.sent_twice, 0);
  ASSERT_GT(stream.bad, 0);
  Reference reference = uninterrupted(stream);

  StoreEmulator store(GetParam());
  MessyLake lake(with_lake(messy_pipeline(), store.lake_section("messy")));
  std::map<std::string, std::set<std::string>> crashed_in;  // point -> the streams it killed
  lake.play(stream, [&](int send) {
    const std::string& point = crash_points()[send % crash_points().size()];
    const std::string& target = stream_of_each_kind()[send / crash_points().size()];
    // The first pass: at this size one send is one ingest batch.
    if (crash_in(lake, point, target, 1)) crashed_in[point].insert(target);
  });
  expect_same_as(reference, lake);
  std::string killed;
  for (const auto& [point, streams] : crashed_in) {
    killed += point + ":";
    for (const auto& s : streams) killed += " " + s;
    killed += "\n";
  }
  std::printf("%s", killed.c_str());
  // The points on the commit path of a table on a store killed a run in every stream kind that
  // passes them at this size. Not asserted here: mid_commit_file is the local commit's temp file
  // (a commit to a store is one PUT), and after_quarantine_commit / after_sink_commit need a
  // quarantined record or a closed window in that very send, which 667 events do not always give
  // (the local suite, at 100,000 events, asserts them).
  const std::set<std::string> all(stream_of_each_kind().begin(), stream_of_each_kind().end());
  const std::map<std::string, std::set<std::string>> expected{
      {"after_plan", all},
      {"mid_checkpoint_file", all},
      {"after_kafka_read", {"read_orders"}},
      {"after_data_files", {"read_orders", "latest_orders"}},
      {"before_delta_commit", {"read_orders", "latest_orders"}},
      {"after_delta_commit", all},
      {"after_state_commit", {"hourly_sales"}}};
  for (const auto& [point, streams] : expected) EXPECT_EQ(crashed_in[point], streams) << point << "\n" << killed;
}

INSTANTIATE_TEST_SUITE_P(Emulators, CrashPointsOnStore, ::testing::Values(Emulator::S3rver, Emulator::Azurite),
                         [](const auto& info) { return std::string(emulator_name(info.param)); });

}  // namespace
}  // namespace lakestream::testing
