// The random kills of tests/faults with the whole lake on each emulator, tables and checkpoints
// both: `lakestream run` killed with SIGKILL at random moments, and before every other rerun the
// local cache folder (the cached data files and the checkpoints' working copy) deleted, as when
// the stream moves to another machine. In the end every table holds what an uninterrupted local
// run wrote, and check says the same. (A kill mid-upload of a window state snapshot leaves half
// of it as the object on s3rver; such kills are why the snapshots' names carry a checksum.)
#include <random>

#include "faults/messy_lake.h"
#include "lake_on_store/store_lake.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

class RandomKillsOnStore : public ::testing::TestWithParam<Emulator> {};

TEST_P(RandomKillsOnStore, KilledRunsOnAnyMachineChangeNothing) {
  const int kills = env_count("LAKESTREAM_STORE_RANDOM_KILLS", 16);
  const unsigned seed = static_cast<unsigned>(env_count("LAKESTREAM_RANDOM_SEED", 11));
  MessyStream stream = messy_stream(kills * 300, kills, seed);
  Reference reference = uninterrupted(stream);

  StoreEmulator store(GetParam());
  std::string lake_section = "[lake]\ntables = \"" + store.url("killed") + "\"\ncheckpoints = \"" +
                             store.url("killed_checkpoints") + "\"\n" + store.storage_section();
  MessyLake lake(with_lake(messy_pipeline(), lake_section));
  std::mt19937 rng(seed);
  // A run over one send takes half a second to a second against an emulator: kills land anywhere
  // in it, and some after it.
  std::uniform_int_distribution<int> delay_ms(0, 800);
  int killed = 0;
  lake.play(stream, [&](int send) {
    CommandResult r = lake.fixture().lakestream_killed_after(delay_ms(rng), "run");
    killed += r.signal == SIGKILL;
    if (send % 2 == 1) remove_all(lake.fixture().dir() + "/cache");  // the next run is "elsewhere"
    lake.run_ok();
  });
  RecordProperty("killed", killed);
  EXPECT_GT(killed, kills / 4) << "many runs should have been killed mid-way";
  expect_same_as(reference, lake);
}

INSTANTIATE_TEST_SUITE_P(Emulators, RandomKillsOnStore, ::testing::Values(Emulator::S3rver, Emulator::Azurite),
                         [](const auto& info) { return std::string(emulator_name(info.param)); });

}  // namespace
}  // namespace lakestream::testing
