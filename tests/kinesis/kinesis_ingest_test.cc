// A Kinesis data stream into bronze, on the kinesalite emulator, with records put by the AWS
// SDK's own client: every record once, numbered in its shard in sequence-number order (checked
// against the sequence numbers Kinesis gave the producer), after a crash at every point, across a
// split and a merge in the middle of a backlog, from each starting position.
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <csignal>

#include "kinesis/sent_records.h"
#include "support/crash_points.h"

namespace lakestream::testing {
namespace {

TEST(KinesisIngest, EveryRecordOnceNumberedInSequenceOrder) {
  KinesisFixture f(kPipeline);
  f.kinesis().create("orders", 3);
  Sent sent;
  sent.put(f.kinesis(), 1500, 1);
  sent.put(f.kinesis(), 40, 2, /*one_by_one=*/true);
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("read_orders: batch 5:"), std::string::npos) << "max_records_per_trigger = 300 makes batches:\n" << r.out;
  expect_bronze_holds(f, sent);
  // The values as the producer wrote them: nulls stay null, the partition key is bronze's key,
  // the arrival time its kinesis_arrival_timestamp.
  EXPECT_EQ(f.query("SELECT count(*) FILTER (WHERE customer IS NULL) AS no_customer, count(*) FILTER (WHERE amount IS NULL) "
                    "AS no_amount, count(*) FILTER (WHERE key IS NULL) AS no_key, "
                    "count(*) FILTER (WHERE kinesis_arrival_timestamp < now() - INTERVAL 10 MINUTE) AS old FROM bronze_orders"),
            "no_customer,no_amount,no_key,old\n" + std::to_string(sent.no_customer) + "," +
                std::to_string(sent.no_amount) + ",0,0\n");
  ASSERT_GT(sent.no_customer, 0);
  ASSERT_GT(sent.no_amount, 0);
  // Nothing new: no batch, no commit.
  CommandResult again = f.lakestream("run");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("read_orders: nothing new"), std::string::npos) << again.out;
  // More records: status sees them waiting in every shard; a run reads from where the last run
  // ended, numbered on, and then none wait.
  sent.put(f.kinesis(), 700, 3);
  CommandResult behind = f.lakestream("status");
  EXPECT_NE(behind.out.find("behind   read_orders"), std::string::npos) << behind.out << behind.err;
  EXPECT_NE(behind.out.find("Kinesis: 3 shards to read, 3 with records waiting"), std::string::npos) << behind.out;
  run_ok(f);
  expect_bronze_holds(f, sent);
  CommandResult caught_up = f.lakestream("status", {"--json"});
  auto status = nlohmann::json::parse(caught_up.out);
  ASSERT_EQ(status["streams"][0]["kinesisLag"].size(), 3u) << caught_up.out;
  for (const auto& shard : status["streams"][0]["kinesisLag"]) EXPECT_FALSE(shard["recordsWaiting"].get<bool>()) << shard;
  // Each batch's progress record carries how far behind the shards' tips its reads were.
  std::ifstream log(f.pipeline().dir() + "/checkpoints/read_orders/progress.jsonl");
  std::string last;
  for (std::string line; std::getline(log, line);) last = line;
  auto record = nlohmann::json::parse(last);
  EXPECT_EQ(record["sources"][0]["description"], "KinesisSource[orders]");
  EXPECT_EQ(record["sources"][0]["metrics"]["numTotalShards"], "3") << last;
  EXPECT_EQ(record["lakestream"]["millisBehindLatest"].size(), 3u) << last;
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_EQ(f.query("SELECT count(*) AS events FROM bronze_orders"), "events\n" + std::to_string(sent.good_count()) + "\n");
  EXPECT_NE(check.out.find("ok      bronze_orders has "), std::string::npos) << check.out;
  EXPECT_NE(check.out.find(" events, each offset once"), std::string::npos) << check.out;
}

TEST(KinesisIngest, ACrashAtEveryPointLosesNothingAndWritesNothingTwice) {
  Kinesalite kinesis;
  kinesis.create("orders", 2);
  Sent sent;
  sent.put(kinesis, 1000, 4);
  std::map<std::string, int> crashed;  // point -> how many of its runs died there
  for (const std::string& point : crash_points()) {
    for (int nth : {1, 3}) {
      SCOPED_TRACE(point + ":" + std::to_string(nth));
      PipelineFixture f(with_kinesis(kPipeline, kinesis.endpoint()), {{"unused", 1}});
      CommandResult killed = f.lakestream("run", {}, {"LAKESTREAM_FAULT=" + point + ":" + std::to_string(nth)});
      if (killed.signal == SIGKILL) crashed[point]++;
      CommandResult rerun = f.lakestream("run");
      ASSERT_EQ(rerun.exit_code, 0) << rerun.out << rerun.err;
      expect_bronze_holds(f, sent);
      EXPECT_EQ(f.lakestream("check").exit_code, 0);
    }
  }
  // Every point an ingest batch passes killed a run, the first and the third time it was passed.
  std::map<std::string, int> expected;
  for (const char* point : {"after_plan", "mid_checkpoint_file", "after_kafka_read", "after_data_files", "mid_commit_file",
                            "after_quarantine_commit", "before_delta_commit", "after_delta_commit"})
    expected[point] = 2;
  EXPECT_EQ(crashed, expected);
}

}  // namespace
}  // namespace lakestream::testing
