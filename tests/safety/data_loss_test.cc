// Offsets that go back (the topic was recreated) or vanish (retention): refused with which
// partitions went from where to where; accepted with fail_on_data_loss = false, which goes on from
// the earliest offset there, records the gap in the bronze commit and has check show it.
#include <csignal>

#include <nlohmann/json.hpp>

#include "safety/safety_pipeline.h"
#include "shop/shop_scenario.h"

namespace lakestream::testing {
namespace {

// The commitInfo of bronze's commit `version`, as the log holds it.
nlohmann::json bronze_commit_info(PipelineFixture& f, int version) {
  char name[32];
  std::snprintf(name, sizeof name, "%020d.json", version);
  std::string text = read_text(f.dir() + "/lake/bronze_orders/_delta_log/" + name);
  return nlohmann::json::parse(text.substr(0, text.find('\n')))["commitInfo"];
}

// Five more events and a run: bronze then holds `total` events, each once.
void expect_next_run_reads_on(PipelineFixture& f, int total) {
  f.produce("orders", safety_events(2000, 5), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  std::string n = std::to_string(total);
  EXPECT_EQ(f.query("select count(*), count(distinct order_id) from bronze_orders"),
            "count_star(),count(DISTINCT order_id)\n" + n + "," + n + "\n");
}

TEST(DataLoss, TopicRecreatedIsRefusedThenAcceptedWithFailOnDataLossFalse) {
  PipelineFixture f(safety_pipeline(), {{"orders", 2}});
  f.produce("orders", safety_events(0, 100), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);

  f.broker().reset();  // every topic wiped and created again, empty
  f.write_pipeline(safety_pipeline());
  f.produce("orders", safety_events(1000, 10), "order_id");
  expect_refused(f.lakestream("run"), {"topic orders went back", "partition 0: from offset ", "fail_on_data_loss = false"});
  EXPECT_EQ(f.query("select count(*) from bronze_orders"), "count_star()\n100\n") << "a refused run wrote nothing";

  f.write_pipeline(safety_pipeline("fail_on_data_loss = false\n"));
  CommandResult accepted = f.lakestream("run");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  EXPECT_EQ(f.query("select count(*), count(distinct order_id) from bronze_orders"),
            "count_star(),count(DISTINCT order_id)\n110,110\n");
  // The gap is in the commit that went on, per partition, with where it went on from.
  auto gaps = bronze_commit_info(f, 1)["lakestream"]["dataLoss"];
  ASSERT_EQ(gaps.size(), 2u) << gaps.dump();
  EXPECT_EQ(gaps[0]["reason"], "went back");
  EXPECT_EQ(gaps[0]["continuedFrom"], 0);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_TRUE(contains(check.out, "ok      bronze_orders has 110 events, each offset once")) << check.out;
  EXPECT_TRUE(contains(check.out, "note    bronze_orders may lack records: partition 0 went on from offset 0 after ")) << check.out;
  EXPECT_TRUE(contains(check.out, "(the topic went back), accepted by fail_on_data_loss = false in version 1")) << check.out;

  // The next run reads on from there, with nothing lost or doubled.
  expect_next_run_reads_on(f, 115);
}

// The case offsets alone cannot tell: the new topic already holds more records than were read, so
// every partition's position is still inside it. Only the record at the position shows the change.
TEST(DataLoss, TopicRecreatedWithMoreRecordsThanWereReadIsRefusedNotSkipped) {
  PipelineFixture f(safety_pipeline(), {{"orders", 3}});
  f.produce("orders", safety_events(0, 10), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);

  f.broker().reset();  // every topic deleted and created again, empty, at a new address
  f.write_pipeline(safety_pipeline());
  f.produce("orders", safety_events(1000, 40), "order_id");
  expect_refused(f.lakestream("run"), {"topic orders was recreated or rewritten: the records stream read_orders read "
                                       "last are not the ones at their offsets now:",
                                       "partition 0, offset ", ": read a record of ", "; now a record of ",
                                       "fail_on_data_loss = false"});
  EXPECT_EQ(f.query("select count(*) from bronze_orders"), "count_star()\n10\n") << "a refused run wrote nothing";

  // Accepted, the new topic is read from its start: all 40 new events, none skipped.
  f.write_pipeline(safety_pipeline("fail_on_data_loss = false\n"));
  CommandResult accepted = f.lakestream("run");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  EXPECT_EQ(f.query("select count(*), count(distinct order_id), count(*) filter (where order_id >= 1000) from bronze_orders"),
            "count_star(),count(DISTINCT order_id),count_star() FILTER (WHERE (order_id >= 1000))\n50,50,40\n");
  auto gaps = bronze_commit_info(f, 1)["lakestream"]["dataLoss"];
  ASSERT_EQ(gaps.size(), 3u) << gaps.dump();
  EXPECT_EQ(gaps[0]["reason"], "recreated");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_TRUE(contains(check.out, "ok      bronze_orders has 50 events, each offset once")) << check.out;
  EXPECT_TRUE(contains(check.out, "(the topic was recreated), accepted by fail_on_data_loss = false in version 1")) << check.out;

  // From then on the new topic's records are the ones checked: runs go on without a refusal.
  expect_next_run_reads_on(f, 55);
}

// A run that died after planning a batch replays exactly that batch; if the topic was recreated
// in between, the offsets hold other records, and the replay is refused rather than written.
TEST(DataLoss, TopicRecreatedBeforeAPlannedBatchIsReplayedIsRefused) {
  PipelineFixture f(safety_pipeline(), {{"orders", 1}});
  f.produce("orders", safety_events(0, 5), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  f.produce("orders", safety_events(5, 5), "order_id");
  CommandResult killed = f.lakestream("run", {}, {"LAKESTREAM_FAULT=after_plan"});
  ASSERT_EQ(killed.signal, SIGKILL) << killed.out << killed.err;

  f.broker().reset();
  f.write_pipeline(safety_pipeline());
  f.produce("orders", safety_events(1000, 12), "order_id");
  expect_refused(f.lakestream("run"), {"topic orders was recreated or rewritten after stream read_orders planned batch 1 "
                                       "and before it was committed", "partition 0, offset 9: read a record of ",
                                       "Nothing was written."});
  EXPECT_EQ(f.query("select count(*) from bronze_orders"), "count_star()\n5\n");
}

TEST(DataLoss, RecordsAgedOutAreRefusedThenSkippedWithFailOnDataLossFalse) {
  // A broker that keeps 5 MiB per partition: 600 kB events push the old ones out.
  PipelineFixture f(safety_pipeline(), {{"orders", 1}}, 5 << 20);
  f.produce("orders", safety_events(0, 3, 600000), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  f.produce("orders", safety_events(3, 20, 600000), "order_id");
  expect_refused(f.lakestream("run"),
                 {"were deleted before stream read_orders read them (retention)", "partition 0: offsets 3 to "});

  f.write_pipeline(safety_pipeline("fail_on_data_loss = false\n"));
  CommandResult accepted = f.lakestream("run");
  ASSERT_EQ(accepted.exit_code, 0) << accepted.err;
  std::string kept = f.query("select min(\"offset\") as first from bronze_orders where \"offset\" >= 3");
  EXPECT_NE(kept, "first\n3\n") << "offset 3 should be gone";
  EXPECT_EQ(f.query("select max(\"offset\") as last from bronze_orders"), "last\n22\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_TRUE(contains(check.out, "note    bronze_orders may lack records: partition 0 went on from offset ")) << check.out;
  EXPECT_TRUE(contains(check.out, "after 3 (older records aged out)")) << check.out;
}

TEST(DataLoss, FailOnDataLossMustBeABoolean) {
  PipelineFixture f(safety_pipeline("fail_on_data_loss = \"no\"\n"), {{"orders", 1}});
  expect_refused(f.lakestream("run"), {"fail_on_data_loss", "must be true or false"});
}

}  // namespace
}  // namespace lakestream::testing
