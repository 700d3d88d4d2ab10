// Debezium change events into silver with deletes: the table must be the replay of the change
// log (per key the newest event by source position, absent when that event is a delete),
// whatever the batching, the partitions' interleaving, resends and tombstones; check says so.
// The replay here is the test's own, sharing nothing with the stream or check.
#include "check/clicks_pipeline.h"
#include "check/change_log_runs.h"
#include "support/change_log.h"

namespace lakestream::testing {
namespace {

const std::string kPipeline = change_log_pipeline();

TEST(ChangeEvents, InsertsUpdatesDeletesAndReinsertsMakeTheReplayedTable) {
  PipelineFixture f(kPipeline, {{"customers", 3}});
  std::vector<Change> log = {{'r', 1, "Ada", 10, 1},     {'c', 2, "Grace", 20, 2}, {'u', 1, "Ada L", 11, 3},
                             {'d', 2, "", 0, 4, true},   {'c', 3, "Alan", 30, 5},  {'c', 2, "Grace H", 21, 6},
                             {'d', 3, "", 0, 7},         {'u', 2, "Grace H", 22, 8, true}};
  std::string lines;
  for (const auto& c : log) lines += change_event_json(c) + "\n";
  f.produce("customers", lines);
  f.produce_empty("customers");  // the tombstone after a delete
  CommandResult run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("1 tombstone skipped"), std::string::npos) << run.out;
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,Ada L,1100\n2,Grace H,2200\n");
  EXPECT_EQ(silver_customers(f), replayed(log));
  expect_check(f,
               "ok      bronze_customers has 8 events, each offset once\n"
               "ok      customers has the newest state of all 2 customers\n"
               "note    1 customer deleted from customers: the newest change of each in bronze_customers is a delete\n");
  EXPECT_EQ(f.query("select _op, _source_lsn, _source_ts_ms from bronze_customers where id = 2 and _op = 'd'"),
            "_op,_source_lsn,_source_ts_ms\nd,4,1790845500004\n");
}

TEST(ChangeEvents, ALateOlderChangeDoesNotBringADeletedRowBack) {
  PipelineFixture f(kPipeline, {{"customers", 1}});
  // Run 1: the delete arrives first (another partition was behind); run 2: the older insert
  // and update of that customer; run 3: a resend of the delete, and an older delete of 1.
  f.produce("customers", change_event_json({'c', 1, "Ada", 10, 5}) + "\n" + change_event_json({'d', 2, "", 0, 9}) + "\n");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  f.produce("customers", change_event_json({'c', 2, "Grace", 20, 3}) + "\n" + change_event_json({'u', 2, "Grace H", 21, 7}) + "\n");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,Ada,1000\n");
  f.produce("customers", change_event_json({'d', 2, "", 0, 9}) + "\n" + change_event_json({'d', 1, "", 0, 2}) + "\n");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,Ada,1000\n");
  // A newer insert of 2 after its delete is a re-insert.
  f.produce("customers", change_event_json({'c', 2, "Grace 2", 23, 12}) + "\n");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,Ada,1000\n2,Grace 2,2300\n");
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

TEST(ChangeEvents, WhatIsNoChangeEventIsQuarantinedWithItsReason) {
  PipelineFixture f(kPipeline, {{"customers", 1}});
  f.produce("customers",
            "{\"id\":1,\"name\":\"no envelope\"}\n"
            "{\"op\":\"t\",\"before\":null,\"after\":null,\"source\":{\"lsn\":3}}\n"
            "{\"op\":\"d\",\"before\":null,\"after\":null,\"source\":{\"lsn\":4}}\n"
            "{\"op\":\"c\",\"after\":{\"id\":\"x\",\"name\":\"Ada\"},\"source\":{\"lsn\":5}}\n"
            "{\"op\":\"c\",\"after\":{\"id\":6,\"name\":\"Ada\"},\"source\":{\"lsn\":6}\n" +
                change_event_json({'c', 7, "Ada", 1, 7}));
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(f.query("select \"offset\", reason from bronze_customers_quarantine order by 1"),
            "offset,reason\n"
            "0,\"not a Debezium change event: no \"\"op\"\" member (envelope = \"\"debezium\"\" reads Debezium's change "
            "events: op, before, after, source)\"\n"
            "1,\"a truncate (op \"\"t\"\") is not applied: the table's rows are deleted one by one only; to empty it, "
            "start its stream over with a new checkpoint\"\n"
            "2,\"change event op \"\"d\"\" has no \"\"before\"\" row to take the key from (Postgres: set the table's "
            "REPLICA IDENTITY so that deletes carry the key)\"\n"
            "3,\"field \"\"id\"\": \"\"x\"\" is not a bigint\"\n"
            "4,not valid JSON\n");
  EXPECT_EQ(silver_customers(f), "id,name,cents\n7,Ada,100\n");
}

TEST(ChangeEvents, GeneratedChangeLogsReplayToTheTableWhateverTheBatching) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<Change> log = generated_change_log(seed, 120, 12);
    std::vector<Change> sent = delivered(log, 6, seed);
    std::mt19937 random(seed);
    auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
    PipelineFixture f(kPipeline, {{"customers", 3}});
    size_t at = 0;
    while (at < sent.size()) {
      size_t n = std::min(sent.size() - at, static_cast<size_t>(1 + pick(40)));
      std::string lines;
      for (size_t i = at; i < at + n; i++) lines += change_event_json(sent[i]) + "\n";
      f.produce("customers", lines);
      if (pick(2) == 0) f.produce_empty("customers");
      at += n;
      CommandResult run = f.lakestream("run");
      ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
    }
    EXPECT_EQ(silver_customers(f), replayed(log));
    CommandResult check = f.lakestream("check");
    EXPECT_EQ(check.exit_code, 0) << check.out;
    EXPECT_NE(check.out.find("ok      customers has the newest state of all"), std::string::npos) << check.out;
  }
}

TEST(ChangeEvents, DeletesIsRefusedWhereItCannotApply) {
  std::string on_window = kPipeline +
                          "\n[streams.counts]\nkind = \"window\"\nfrom = \"bronze_customers\"\ntable = \"counts\"\n"
                          "event_time = \"kafka_timestamp\"\nwatermark = \"1 minute\"\nwindow = \"1 hour\"\n"
                          "deletes = \"_op = 'd'\"\n[streams.counts.aggregates]\nn = \"count(*)\"\n";
  PipelineFixture f(on_window, {{"customers", 1}});
  CommandResult run = f.lakestream("run");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("lakestream.toml:32: streams.counts.deletes: is a setting of latest streams, not of window "
                         "streams"),
            std::string::npos)
      << run.err;

  std::string unbound = kPipeline;
  unbound.replace(unbound.find("_op = 'd'"), 9, "operation = 'd'");
  f.write_pipeline(unbound);
  run = f.lakestream("run");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("lakestream.toml:22: streams.customers.deletes: 'operation = 'd'' does not run over the "
                         "columns of bronze_customers"),
            std::string::npos)
      << run.err;
}

TEST(ChangeEvents, AddingDeletesToAStreamThatRanIsRefused) {
  // Its table holds the delete events it read before as rows: starting over is the way.
  std::string without = kPipeline;
  without.erase(without.find("deletes = \"_op = 'd'\"\n"), 22);
  PipelineFixture f(without, {{"customers", 1}});
  send_changes_and_run(f, {{'c', 1, "Ada", 1, 10}, {'d', 1, "", 0, 20}});
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,,\n");  // the delete, as a row
  f.write_pipeline(kPipeline);
  CommandResult run = f.lakestream("run");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("deletes: was \"\", now \"_op = 'd'\""), std::string::npos) << run.err;
}

}  // namespace
}  // namespace lakestream::testing
