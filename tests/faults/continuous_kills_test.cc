// `lakestream run --continuous --interval 0s` killed with SIGKILL at random moments while events
// keep arriving (LAKESTREAM_CONTINUOUS_KILLS, 10 by default). A continuous run keeps its Kafka
// consumer, DuckDB and the tables' checkpoints from one cycle to the next; none of it may be a
// source of truth: after each kill a new process goes on from the checkpoints, and in the end
// bronze, its quarantine and silver hold exactly what uninterrupted plain runs wrote, and check
// finds no problem. (Gold is left to check: where a continuous run's batches end decides which
// events are late, by design.)
#include <signal.h>

#include <chrono>
#include <memory>
#include <random>
#include <thread>

#include "faults/messy_lake.h"

namespace lakestream::testing {
namespace {

TEST(ContinuousKills, KilledContinuousRunsChangeNothing) {
  const int sends = env_count("LAKESTREAM_CONTINUOUS_KILLS", 10);
  const unsigned seed = static_cast<unsigned>(env_count("LAKESTREAM_RANDOM_SEED", 7));
  MessyStream stream = messy_stream(sends * 300, sends, seed);

  MessyLake reference;
  reference.play(stream, [&](int) { reference.run_ok(); });

  MessyLake lake;
  PipelineFixture& f = lake.fixture();
  std::mt19937 rng(seed);
  // A send takes a cycle or a few (1,500 records a batch): kills land while a cycle reads, writes
  // or commits, and while the consumer waits for records that are on their way.
  std::uniform_int_distribution<int> delay_ms(0, 900);
  auto run = lake.start_continuous();
  int killed = 0;
  lake.play(stream, [&](int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    if (rng() % 3 == 0) return;  // this process lives on into the next send: its kept consumer reads it
    run->send_signal(SIGKILL);
    CommandResult r = run->wait(30000);
    killed += r.signal == SIGKILL;
    run = lake.start_continuous();
  });
  // The last process stops cleanly; a plain run then reads whatever is left.
  lake.stop_continuous(*run, 500);
  RecordProperty("killed", killed);
  EXPECT_GT(killed, sends / 3) << "most processes should have been killed";

  std::string expected = batching_free_contents(reference.fixture()),
              actual = batching_free_contents(f);
  EXPECT_TRUE(actual == expected) << "seed " << seed << ": " << first_difference(expected, actual);
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace lakestream::testing
