// `lakestream run` killed with SIGKILL at random moments, over many runs (LAKESTREAM_RANDOM_KILLS,
// 50 by default; scripts/random-kills passes more): after each kill the streams run again, and in
// the end every table holds what an uninterrupted run wrote.
#include <random>

#include "faults/messy_lake.h"

namespace lakestream::testing {
namespace {

TEST(RandomKills, KilledRunsChangeNothing) {
  const int kills = env_count("LAKESTREAM_RANDOM_KILLS", 50);
  const unsigned seed = static_cast<unsigned>(env_count("LAKESTREAM_RANDOM_SEED", 5));
  MessyStream stream = messy_stream(kills * 300, kills, seed);

  MessyLake reference;
  reference.play(stream, [&](int) { reference.run_ok(); });

  MessyLake lake;
  std::mt19937 rng(seed);
  // A run over one send takes some hundred milliseconds: kills land anywhere in it, from the
  // start (opening the checkpoint) to the end (the window's no-data batch), and some after it.
  std::uniform_int_distribution<int> delay_ms(0, 400);
  int killed = 0;
  lake.play(stream, [&](int) {
    CommandResult r = lake.fixture().lakestream_killed_after(delay_ms(rng), "run");
    killed += r.signal == SIGKILL;
    lake.run_ok();
  });
  RecordProperty("killed", killed);
  EXPECT_GT(killed, kills / 2) << "most runs should have been killed mid-way";

  std::string expected = reference.contents(), actual = lake.contents();
  EXPECT_TRUE(actual == expected) << "seed " << seed << ": " << first_difference(expected, actual);
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, reference.check().out);
}

}  // namespace
}  // namespace lakestream::testing
