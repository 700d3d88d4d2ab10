// `lakestream run` killed with SIGKILL at random moments, over many runs (LAKESTREAM_RANDOM_KILLS,
// 50 by default; scripts/random-kills passes more): after each kill the streams run again, and in
// the end every table holds what an uninterrupted run wrote.
#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "faults/messy_lake.h"

namespace lakestream::testing {
namespace {

TEST(RandomKills, KilledRunsChangeNothing) {
  const int kills = env_count("LAKESTREAM_RANDOM_KILLS", 50);
  const unsigned seed = static_cast<unsigned>(env_count("LAKESTREAM_RANDOM_SEED", 5));
  MessyStream stream = messy_stream(kills * 300, kills, seed);

  MessyLake reference;
  std::vector<int> run_ms;
  reference.play(stream, [&](int) {
    auto started = std::chrono::steady_clock::now();
    reference.run_ok();
    run_ms.push_back(static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started).count()));
  });
  std::nth_element(run_ms.begin(), run_ms.begin() + run_ms.size() / 2, run_ms.end());
  const int median_run_ms = run_ms[run_ms.size() / 2];

  MessyLake lake;
  std::mt19937 rng(seed);
  // Kills land anywhere in a run, from the start (opening the checkpoint) to the end (the
  // window's no-data batch), and some after it: delays up to 1.25 times the reference's median
  // run over one send, so that a machine's speed changes how long a run takes, not how many runs
  // a kill cuts short (a fixed 400 ms cut only half of them on a fast machine).
  std::uniform_int_distribution<int> delay_ms(0, std::max(20, median_run_ms * 5 / 4));
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
