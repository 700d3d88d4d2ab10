// A Kinesis source's shards over time: a split and a merge in the middle of a backlog (parents
// read to their end before their children, so each key's records stay in order), where a first
// run starts (trim_horizon, latest, a time), throttling waited out, and a stream deleted and
// created again under a stream that read it.
#include <chrono>
#include <csignal>
#include <ctime>

#include "kinesis/sent_records.h"

namespace lakestream::testing {
namespace {

// Each key's records in bronze, ordered by batch then position, must be in the order they were put
// (their order_ids rise): the count of those that are not.
std::string with_setting(const std::string& toml, const std::string& line) {
  std::string out = toml;
  std::string at = "max_records_per_trigger = 300\n";
  out.replace(out.find(at), at.size(), at + line + "\n");
  return out;
}

TEST(KinesisShards, ASplitAndAMergeMidBacklogKeepEachKeysOrder) {
  KinesisFixture f(kPipeline);
  f.kinesis().create("orders", 2);
  Sent sent;
  sent.put(f.kinesis(), 900, 11);
  // The first run dies after its third batch: the parents are read in part.
  CommandResult killed = f.lakestream("run", {}, {"LAKESTREAM_FAULT=after_delta_commit:3"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.out << killed.err;
  // Shard 0 splits into 2 and 3; 3 (the upper half) and 1 merge into 4; records go to each generation.
  auto split = f.kinesis().run({{{"split", "orders"}, {"shard", "shardId-000000000000"}}});
  ASSERT_EQ(split.at(0)["shards"].size(), 4u) << split.at(0).dump();
  sent.put(f.kinesis(), 900, 12);
  auto merged = f.kinesis().run({{{"merge", "orders"}, {"shard", "shardId-000000000003"}, {"adjacent", "shardId-000000000001"}}});
  ASSERT_EQ(merged.at(0)["shards"].size(), 5u) << merged.at(0).dump();
  EXPECT_EQ(merged.at(0)["shards"][4]["ParentShardId"], "shardId-000000000003");
  EXPECT_EQ(merged.at(0)["shards"][4]["AdjacentParentShardId"], "shardId-000000000001");
  sent.put(f.kinesis(), 900, 13);
  std::set<std::string> shards_put;
  for (const auto& p : sent.puts) shards_put.insert(p.shard);
  ASSERT_EQ(shards_put.size(), 5u) << "every generation of shards holds records";

  run_ok(f);
  expect_bronze_holds(f, sent);
  EXPECT_EQ(f.query(out_of_order_sql()), "out_of_order\n0\n");
  // Closed shards are remembered as read: nothing new, no batch.
  CommandResult again = f.lakestream("run");
  EXPECT_NE(again.out.find("read_orders: nothing new"), std::string::npos) << again.out << again.err;
  sent.put(f.kinesis(), 200, 14);
  run_ok(f);
  expect_bronze_holds(f, sent);
  EXPECT_EQ(f.query(out_of_order_sql()), "out_of_order\n0\n");
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

TEST(KinesisShards, LatestStartsWithWhatArrivesAfterTheFirstRun) {
  KinesisFixture f(with_setting(kPipeline, "starting_position = \"latest\""));
  f.kinesis().create("orders", 2);
  Sent before;
  before.put(f.kinesis(), 100, 21);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  run_ok(f);
  EXPECT_EQ(f.query("SELECT count(*) AS n FROM bronze_orders"), "n\n0\n");
  Sent after;
  after.next_id = 1000;
  after.put(f.kinesis(), 150, 22);
  run_ok(f);
  // Exactly the later records, numbered from 0 in each shard (the stream's first records there).
  expect_bronze_holds(f, after);
}

TEST(KinesisShards, ATimeStartsWithWhatArrivedFromThen) {
  Kinesalite kinesis;
  kinesis.create("orders", 2);
  Sent before;
  before.put(kinesis, 100, 31);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char when[40];
  std::strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);  // a whole second: the records of it and after
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Sent after;
  after.next_id = 1000;
  after.put(kinesis, 120, 32);
  PipelineFixture f(with_kinesis(with_setting(kPipeline, std::string("starting_position = \"") + when + "\""),
                                 kinesis.endpoint()),
                    {{"unused", 1}});
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_bronze_holds(f, after);
}

TEST(KinesisShards, ThrottlingIsWaitedOutAndTold) {
  Kinesalite kinesis;
  kinesis.create("orders", 2);
  Sent sent;
  sent.put(kinesis, 1200, 41);
  FaultyKinesisProxy proxy(kinesis.port(), "throttle");
  PipelineFixture f(with_kinesis(kPipeline, proxy.endpoint()), {{"unused", 1}});
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_bronze_holds(f, sent);
  EXPECT_NE(r.out.find("warning: Kinesis throttled "), std::string::npos) << r.out;
}

// Iterators expire after 5 minutes; every other read here finds its iterator expired, in new
// batches and in the replay of a planned one: each goes on after the last record it took.
TEST(KinesisShards, AnExpiredIteratorGoesOnWhereItStood) {
  Kinesalite kinesis;
  kinesis.create("orders", 2);
  Sent sent;
  sent.put(kinesis, 1500, 42);
  FaultyKinesisProxy proxy(kinesis.port(), "expire");
  // Reads of 50 records: a batch of 300 takes several reads of each shard.
  std::string toml = with_kinesis(kPipeline, proxy.endpoint());
  PipelineFixture f(toml, {{"unused", 1}});
  CommandResult killed = f.lakestream("run", {}, {"LAKESTREAM_FAULT=after_plan:2"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.out << killed.err;
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("read_orders: batch 1 (replayed after a crash): 300 in"), std::string::npos) << r.out;
  expect_bronze_holds(f, sent);
}

TEST(KinesisShards, AStreamCreatedAgainIsRefusedWithWhatToDo) {
  KinesisFixture f(kPipeline);
  f.kinesis().create("orders", 2);
  Sent sent;
  sent.put(f.kinesis(), 200, 51);
  run_ok(f);
  f.kinesis().run({{{"delete", "orders"}}});
  f.kinesis().create("orders", 2);
  Sent again;
  again.put(f.kinesis(), 50, 52);
  CommandResult r = f.lakestream("run");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.err.find("fail_on_data_loss"), std::string::npos) << r.err;
  // Nothing was written: bronze still holds the first stream's records.
  expect_bronze_holds(f, sent);
}

// With fail_on_data_loss = false, a stream deleted and created again with fewer shards is read
// from its start: the shards of the same ids numbered on, the vanished ones recorded as gaps in
// the bronze commit, which check shows, and every record of both streams in bronze once.
TEST(KinesisShards, WithoutFailOnDataLossARecreatedStreamIsReadOnAndTheGapsShown) {
  KinesisFixture f(with_setting(kPipeline, "fail_on_data_loss = false"));
  f.kinesis().create("orders", 3);
  Sent first;
  first.put(f.kinesis(), 300, 71);
  run_ok(f);
  f.kinesis().run({{{"delete", "orders"}}});
  f.kinesis().create("orders", 2);
  Sent second;
  second.next_id = 1000;
  second.put(f.kinesis(), 200, 72);
  run_ok(f);
  // Shards 0 and 1 go on from where the first stream's ended, numbered on; shard 2 is gone.
  std::map<int32_t, int64_t> first_end, second_count;
  for (const auto& put : first.puts) first_end[KinesisClient::shard_number(put.shard)]++;
  for (const auto& put : second.puts) second_count[KinesisClient::shard_number(put.shard)]++;
  std::string expected = "partition,from_offset,records\n";
  for (int32_t p : {0, 1, 2})
    expected += std::to_string(p) + "," + std::to_string(p < 2 ? first_end[p] : 0) + "," +
                std::to_string(first_end[p] + second_count[p]) + "\n";
  EXPECT_EQ(f.query("SELECT partition, coalesce(min(\"offset\") FILTER (WHERE order_id >= 1000), 0) AS from_offset, "
                    "count(*) AS records FROM (SELECT partition, \"offset\", order_id FROM bronze_orders UNION ALL "
                    "SELECT partition, \"offset\", NULL FROM bronze_orders_quarantine) GROUP BY partition ORDER BY partition"),
            expected);
  EXPECT_EQ(f.query("SELECT count(*) AS events, count(DISTINCT (partition, \"offset\")) AS positions FROM bronze_orders"),
            "events,positions\n" + std::to_string(first.good_count() + second.good_count()) + "," +
                std::to_string(first.good_count() + second.good_count()) + "\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  for (const std::string& note : {"partition 0 went on from offset " + std::to_string(first_end[0]) + " after " +
                                     std::to_string(first_end[0]) + " (the topic was recreated)",
                                 "partition 2 of the topic vanished after offset " + std::to_string(first_end[2])})
    EXPECT_NE(check.out.find("bronze_orders may lack records: " + note), std::string::npos) << note << "\n" << check.out;
}

}  // namespace
}  // namespace lakestream::testing
