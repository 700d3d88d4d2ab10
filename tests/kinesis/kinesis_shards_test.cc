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

// kinesalite with a 2-shard stream `orders` that holds `count` generated records.
struct TwoShards {
  TwoShards(int count, uint32_t seed) {
    kinesis.create("orders", 2);
    sent.put(kinesis, count, seed);
  }
  Kinesalite kinesis;
  Sent sent;
};

TEST(KinesisShards, ThrottlingIsWaitedOutAndTold) {
  TwoShards stream(1200, 41);
  FaultyKinesisProxy proxy(stream.kinesis.port(), "throttle");
  PipelineFixture f(with_kinesis(kPipeline, proxy.endpoint()), {{"unused", 1}});
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_bronze_holds(f, stream.sent);
  EXPECT_NE(r.out.find("warning: Kinesis throttled "), std::string::npos) << r.out;
}

// Iterators expire after 5 minutes; every other read here finds its iterator expired, in new
// batches and in the replay of a planned one: each goes on after the last record it took.
TEST(KinesisShards, AnExpiredIteratorGoesOnWhereItStood) {
  TwoShards stream(1500, 42);
  FaultyKinesisProxy proxy(stream.kinesis.port(), "expire");
  // Reads of 50 records: a batch of 300 takes several reads of each shard.
  std::string toml = with_kinesis(kPipeline, proxy.endpoint());
  PipelineFixture f(toml, {{"unused", 1}});
  CommandResult killed = f.lakestream("run", {}, {"LAKESTREAM_FAULT=after_plan:2"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.out << killed.err;
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("read_orders: batch 1 (replayed after a crash): 300 in"), std::string::npos) << r.out;
  expect_bronze_holds(f, stream.sent);
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

// `lines` (CSV with a header, partition then offset first) without partition `partition` from
// `from` on.
std::string without_partition_from(const std::string& lines, int32_t partition, int64_t from) {
  std::istringstream in(lines);
  std::string out, line;
  std::getline(in, line);
  out = line + "\n";
  while (std::getline(in, line)) {
    size_t comma = line.find(','), next = line.find(',', comma + 1);
    if (std::stoi(line.substr(0, comma)) == partition && std::stoll(line.substr(comma + 1, next - comma - 1)) >= from) continue;
    out += line + "\n";
  }
  return out;
}

// A run refused (exit 1) with an error that says each of `says`.
void expect_refused(const CommandResult& r, const std::vector<std::string>& says) {
  EXPECT_EQ(r.exit_code, 1) << r.out;
  for (const auto& text : says) EXPECT_NE(r.err.find(text), std::string::npos) << text << "\n" << r.err;
}

// Kinesis forgets a closed shard once its records are past the retention period. A shard the
// stream had not read to its end when that happened is refused, naming it and what it read;
// with fail_on_data_loss = false the stream reads on (the shard's children at once) and check
// shows the gap.
TEST(KinesisShards, AShardGoneWithTheRetentionIsRefusedOrTheGapShown) {
  TwoShards stream(700, 81);
  Kinesalite& kinesis = stream.kinesis;
  Sent& sent = stream.sent;
  FaultyKinesisProxy proxy(kinesis.port(), "retire:shardId-000000000001");
  PipelineFixture f(with_kinesis(kPipeline, kinesis.endpoint()), {{"unused", 1}});
  // The first batch reads a part of each shard; then shard 1 splits (and closes), and more
  // records go to its children.
  CommandResult first = f.lakestream("run", {}, {"LAKESTREAM_FAULT=after_kafka_read:2"});
  ASSERT_EQ(first.signal, SIGKILL) << first.out << first.err;
  kinesis.run({{{"split", "orders"}, {"shard", "shardId-000000000001"}}});
  sent.put(kinesis, 300, 82);
  std::string read_of_shard_1 = f.query("SELECT count(*) AS n FROM (SELECT \"offset\" FROM bronze_orders WHERE partition = 1 "
                                        "UNION ALL SELECT \"offset\" FROM bronze_orders_quarantine WHERE partition = 1)");
  int64_t read_to = std::stoll(read_of_shard_1.substr(2));
  ASSERT_GT(read_to, 0);
  const std::string before = f.query("SELECT count(*) AS n FROM bronze_orders");

  // Past the retention, through the proxy: refused, and nothing written.
  f.write_pipeline(with_kinesis(kPipeline, proxy.endpoint()));
  expect_refused(f.lakestream("run"), {"shards of Kinesis stream orders expired before stream read_orders read them to "
                                       "their end (retention):\n  shardId-000000000001 (read up to sequence number ",
                                       "set fail_on_data_loss = false in [sources.orders]"});
  EXPECT_EQ(f.query("SELECT count(*) AS n FROM bronze_orders"), before);

  f.write_pipeline(with_kinesis(with_setting(kPipeline, "fail_on_data_loss = false"), proxy.endpoint()));
  run_ok(f);
  Expected e = sent.expected();
  // (Compared as booleans: a mismatch would print thousands of lines.)
  EXPECT_TRUE(f.query("SELECT partition, \"offset\", kinesis_shard_id, kinesis_sequence_number, order_id FROM bronze_orders "
                      "ORDER BY partition, \"offset\"") == without_partition_from(e.bronze, 1, read_to));
  EXPECT_TRUE(f.query("SELECT partition, \"offset\", kinesis_shard_id, kinesis_sequence_number FROM bronze_orders_quarantine "
                      "ORDER BY partition, \"offset\"") == without_partition_from(e.quarantine, 1, read_to));
  CommandResult check = f.lakestream("check");
  EXPECT_NE(check.out.find("bronze_orders may lack records: partition 1 of the topic vanished after offset " +
                           std::to_string(read_to)),
            std::string::npos)
      << check.out;

  // A batch planned with records of the shard cannot be replayed once it is gone: refused, as a
  // replay of records aged out is, and nothing written.
  PipelineFixture planned(with_kinesis(with_setting(kPipeline, "fail_on_data_loss = false"), kinesis.endpoint()), {{"unused", 1}});
  CommandResult killed = planned.lakestream("run", {}, {"LAKESTREAM_FAULT=after_plan:2"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.out << killed.err;
  const std::string committed = planned.query("SELECT count(*) AS n FROM bronze_orders");
  planned.write_pipeline(with_kinesis(with_setting(kPipeline, "fail_on_data_loss = false"), proxy.endpoint()));
  expect_refused(planned.lakestream("run"),
                 {"stream read_orders cannot replay batch 1: in shardId-000000000001 of orders, the records it planned",
                  "are not there as they were: the shard is gone."});
  EXPECT_EQ(planned.query("SELECT count(*) AS n FROM bronze_orders"), committed);
}

// Kinesis serves 2 MB a second per shard: after a read of N bytes the shard is read again no
// sooner than N / 2 MB seconds later (and 200 ms at least), by new batches and the plain reader alike.
TEST(KinesisShards, ReadsOfAShardKeepToTwoMegabytesASecond) {
  Kinesalite kinesis;
  kinesis.create("orders", 1);
  nlohmann::json records = nlohmann::json::array();
  for (int i = 0; i < 40; i++)
    records.push_back({{"data", nlohmann::json{{"order_id", i + 1}, {"event_time", "2026-03-02T09:00:00Z"},
                                               {"note", std::string(100'000, 'a' + i % 26)}}.dump()},
                       {"key", "k" + std::to_string(i)}});
  for (int part = 0; part < 4; part++)
    kinesis.put("orders", nlohmann::json(std::vector<nlohmann::json>(records.begin() + part * 10, records.begin() + part * 10 + 10)));
  FaultyKinesisProxy proxy(kinesis.port(), "meter");
  PipelineFixture f(with_kinesis(kPipeline, proxy.endpoint()), {{"unused", 1}});
  run_ok(f);
  EXPECT_EQ(f.query("SELECT count(*) AS n, sum(length(note)) AS bytes FROM bronze_orders"), "n,bytes\n40,4000000\n");
  std::istringstream log(proxy.log());
  std::vector<std::pair<int64_t, int64_t>> reads;  // arrival ms, bytes
  std::string word;
  for (int64_t at, bytes; log >> word >> at >> bytes;)
    if (word == "read") reads.push_back({at, bytes});
  ASSERT_GE(reads.size(), 2u) << proxy.log();
  int64_t largest = 0;
  for (size_t i = 1; i < reads.size(); i++) {
    largest = std::max(largest, reads[i - 1].second);
    int64_t wait_ms = std::max<int64_t>(200, reads[i - 1].second / 2000);
    EXPECT_GE(reads[i].first - reads[i - 1].first, wait_ms - 5) << "read " << i << " of\n" << proxy.log();
  }
  EXPECT_GT(largest, 1'000'000) << "a read should have returned more than a second's 2 MB half:\n" << proxy.log();
}

}  // namespace
}  // namespace lakestream::testing
