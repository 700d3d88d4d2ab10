// `lakestream run` on a Kinesis source killed with SIGKILL at random moments while records keep
// arriving and the stream splits and merges shards: after a last run bronze holds every record
// once, each key's records in put order, and check is clean. Random kills complement the crash
// points (kinesis_ingest_test.cc): they land anywhere, mid-request and mid-file included.
#include <csignal>
#include <random>

#include "kinesis/sent_records.h"
#include "support/test_settings.h"

namespace lakestream::testing {
namespace {

TEST(KinesisRandomKills, KilledRunsLoseNothingAndWriteNothingTwice) {
  const int rounds = env_count("LAKESTREAM_KINESIS_KILLS", 16);
  const unsigned seed = static_cast<unsigned>(env_count("LAKESTREAM_RANDOM_SEED", 5));
  std::mt19937 rng(seed);
  // A run over one round's records takes about a second (two batches of 300; each shard's reads
  // 200 ms apart): kills land from the start (listing shards) to the end, and some after it.
  std::uniform_int_distribution<int> delay_ms(0, 1000);
  KinesisFixture f(kPipeline);
  f.kinesis().create("orders", 3);
  Sent sent;
  int killed = 0;
  for (int round = 0; round < rounds; round++) {
    SCOPED_TRACE("seed " + std::to_string(seed) + ", round " + std::to_string(round));
    sent.put(f.kinesis(), 300, seed * 1000 + round, /*one_by_one=*/round % 5 == 4);
    // A third of the way, shard 0 splits (into 3 and 4); two thirds, 4 and 1 merge (into 5):
    // parents part-read by killed runs, children written to at once.
    if (round == rounds / 3) {
      auto split = f.kinesis().run({{{"split", "orders"}, {"shard", "shardId-000000000000"}}});
      ASSERT_EQ(split.at(0)["shards"].size(), 5u) << split.at(0).dump();
    }
    if (round == 2 * rounds / 3) {
      auto merged = f.kinesis().run({{{"merge", "orders"}, {"shard", "shardId-000000000004"}, {"adjacent", "shardId-000000000001"}}});
      ASSERT_EQ(merged.at(0)["shards"].size(), 6u) << merged.at(0).dump();
    }
    CommandResult r = f.pipeline().lakestream_killed_after(delay_ms(rng), "run");
    killed += r.signal == SIGKILL;
    if (r.signal != SIGKILL) {
      ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    }
  }
  RecordProperty("killed", killed);
  EXPECT_GT(killed, rounds / 2) << "most runs should have been killed mid-way";
  run_ok(f);
  expect_bronze_holds(f, sent);
  EXPECT_EQ(f.query(out_of_order_sql()), "out_of_order\n0\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
}

}  // namespace
}  // namespace lakestream::testing
