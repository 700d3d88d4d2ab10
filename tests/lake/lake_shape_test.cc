// The lake's shape as a user sees it: bronze partitioned by a derived day, a source schema that
// grows between runs (the streams go on, the tables evolve), changes that cannot be applied in
// place refused, and vacuum leaving what the streams still need.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "orders_pipeline.h"
#include "support/other_readers.h"
#include "support/pipeline_fixture.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

std::string pipeline(const std::string& extra_fields, const std::string& amount_type = "decimal(18,2)",
                     const std::string& partition_by = "[\"dt\"]") {
  return orders_pipeline(extra_fields, amount_type, partition_by);
}

std::string checkpoint_id(const PipelineFixture& f, const std::string& stream) {
  return nlohmann::json::parse(read_file(f.dir() + "/checkpoints/" + stream + "/metadata.json"))["id"];
}

TEST(LakeShape, PartitionedBronzeThenANewFieldEvolvesTheTablesAndTheStreamsGoOn) {
  PipelineFixture f(pipeline(""), {{"orders", 2}});
  f.produce("orders",
            "{\"order_id\":1,\"status\":\"placed\",\"amount\":10.00,\"event_time\":\"2026-10-01T23:30:00Z\"}\n"
            "{\"order_id\":2,\"status\":\"placed\",\"amount\":20.00,\"event_time\":\"2026-10-02T00:30:00Z\"}\n"
            "{\"order_id\":3,\"status\":\"placed\",\"amount\":30.00,\"event_time\":\"2026-10-02T01:30:00Z\"}\n",
            "order_id");
  CommandResult run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // One batch, two days: one file in each day's folder.
  std::string bronze = f.dir() + "/lake/bronze_orders";
  EXPECT_EQ(list_dir_count(bronze + "/dt=2026-10-01"), 1);
  EXPECT_EQ(list_dir_count(bronze + "/dt=2026-10-02"), 1);
  EXPECT_EQ(f.query("select order_id, dt from bronze_orders order by order_id"),
            "order_id,dt\n1,2026-10-01\n2,2026-10-02\n3,2026-10-02\n");
  std::string ingest_id = checkpoint_id(f, "read_orders"), latest_id = checkpoint_id(f, "latest_orders");

  // The shop adds a coupon to its events; the pipeline file says so.
  f.write_pipeline(pipeline("coupon = \"string\"\n"));
  f.produce("orders",
            "{\"order_id\":2,\"status\":\"paid\",\"amount\":20.00,\"event_time\":\"2026-10-02T02:00:00Z\",\"coupon\":\"FALL\"}\n"
            "{\"order_id\":4,\"status\":\"placed\",\"amount\":40.00,\"event_time\":\"2026-10-02T03:00:00Z\",\"coupon\":\"NEW\"}\n",
            "order_id");
  run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(f.query("select order_id, status, coalesce(coupon, 'null') as coupon from bronze_orders order by order_id, status"),
            "order_id,status,coupon\n1,placed,null\n2,paid,FALL\n2,placed,null\n3,placed,null\n4,placed,NEW\n");
  EXPECT_EQ(f.query("select order_id, status, coalesce(coupon, 'null') as coupon from orders order by order_id"),
            "order_id,status,coupon\n1,placed,null\n2,paid,FALL\n3,placed,null\n4,placed,NEW\n");
  // The tables evolved by a metaData commit; the streams kept their checkpoints; nothing doubled.
  std::string evolved = read_file(bronze + "/_delta_log/00000000000000000001.json");
  EXPECT_NE(evolved.find("\"metaData\""), std::string::npos);
  EXPECT_NE(evolved.find("coupon"), std::string::npos);
  EXPECT_EQ(read_file(bronze + "/_delta_log/00000000000000000000.json").find("coupon"), std::string::npos);
  EXPECT_EQ(checkpoint_id(f, "read_orders"), ingest_id);
  EXPECT_EQ(checkpoint_id(f, "latest_orders"), latest_id);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      bronze_orders has 5 events, each offset once"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("ok      orders has the newest state of all 4 orders"), std::string::npos) << check.out;
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(LakeShape, ChangesThatCannotBeAppliedInPlaceAreRefusedWithTheWayOut) {
  PipelineFixture f(pipeline(""), {{"orders", 1}});
  f.produce("orders", "{\"order_id\":1,\"status\":\"placed\",\"amount\":10.00,\"event_time\":\"2026-10-01T23:30:00Z\"}\n");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);

  f.write_pipeline(pipeline("", "int"));
  f.produce("orders", "{\"order_id\":2,\"status\":\"placed\",\"amount\":11,\"event_time\":\"2026-10-01T23:40:00Z\"}\n");
  CommandResult narrowed = f.lakestream("run");
  EXPECT_NE(narrowed.exit_code, 0);
  EXPECT_NE(narrowed.err.find("schema.amount: was \"decimal(18,2)\", now \"integer\""), std::string::npos) << narrowed.err;
  EXPECT_NE(narrowed.err.find("write to a new table"), std::string::npos) << narrowed.err;

  f.write_pipeline(pipeline("", "decimal(18,2)", "[]"));
  CommandResult unpartitioned = f.lakestream("run");
  EXPECT_NE(unpartitioned.exit_code, 0);
  EXPECT_NE(unpartitioned.err.find("the partition columns changed from [dt] to [none]"), std::string::npos)
      << unpartitioned.err;

  // Back to the table's shape, the stream goes on with the record it could not write.
  f.write_pipeline(pipeline(""));
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(f.query("select count(*) as n from bronze_orders"), "n\n2\n");
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(LakeShape, VacuumKeepsWhatTheStreamsStillNeed) {
  PipelineFixture f(pipeline(""), {{"orders", 1}});
  for (int i = 1; i <= 12; i++) {
    f.produce("orders", "{\"order_id\":" + std::to_string(i) +
                            ",\"status\":\"placed\",\"amount\":1.00,\"event_time\":\"2026-10-01T10:00:00Z\"}\n");
    ASSERT_EQ(f.lakestream("run", {"read_orders"}).exit_code, 0);  // silver falls behind
  }
  std::string log = f.dir() + "/lake/bronze_orders/_delta_log";
  ASSERT_TRUE(std::filesystem::exists(log + "/00000000000000000010.checkpoint.parquet"));
  // latest_orders never ran: it must still read bronze from version 0.
  CommandResult dry = f.lakestream("vacuum", {"bronze_orders", "--retain", "0s", "--unsafe-retention", "--dry-run"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("versions from 0 stay readable; would delete 0 data files"), std::string::npos) << dry.out;

  ASSERT_EQ(f.lakestream("run", {"latest_orders"}).exit_code, 0);
  dry = f.lakestream("vacuum", {"bronze_orders", "--retain", "0s", "--unsafe-retention", "--dry-run"});
  EXPECT_NE(dry.out.find("would delete _delta_log/00000000000000000000.json"), std::string::npos) << dry.out;
  CommandResult done = f.lakestream("vacuum", {"bronze_orders", "--retain", "0s", "--unsafe-retention"});
  ASSERT_EQ(done.exit_code, 0) << done.err;
  EXPECT_FALSE(std::filesystem::exists(log + "/00000000000000000000.json"));
  EXPECT_EQ(f.query("select count(*) as n from bronze_orders"), "n\n12\n");
  f.produce("orders", "{\"order_id\":13,\"status\":\"placed\",\"amount\":1.00,\"event_time\":\"2026-10-01T10:00:00Z\"}\n");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("orders has the newest state of all 13 orders"), std::string::npos) << check.out;
  expect_other_readers_accept(f.dir() + "/lake");
}

// Order `i`, placed, as one line of the orders topic.
std::string order(int i) {
  return "{\"order_id\":" + std::to_string(i) + ",\"status\":\"placed\",\"amount\":1.00,"
         "\"event_time\":\"2026-10-01T10:00:00Z\"}\n";
}

TEST(LakeShape, AKillWhileWritingACheckpointLeavesTheTableWholeAndTheNextCheckpointComes) {
  // Without compaction, whose commits would move the versions the checkpoints come at.
  PipelineFixture f("[lake]\ncompact = false\n" + pipeline(""), {{"orders", 1}});
  std::string log = f.dir() + "/lake/bronze_orders/_delta_log";
  for (int i = 0; i <= 10; i++) {
    f.produce("orders", order(i));
    // Version 10's commit is in when the kill comes, its checkpoint not yet renamed into place.
    CommandResult r = f.lakestream("run", {"read_orders"}, {"LAKESTREAM_FAULT=before_checkpoint_rename"});
    if (i < 10) ASSERT_EQ(r.exit_code, 0) << r.err;
    else EXPECT_EQ(r.signal, 9) << r.out << r.err;
  }
  EXPECT_TRUE(std::filesystem::exists(log + "/00000000000000000010.json"));
  EXPECT_FALSE(std::filesystem::exists(log + "/00000000000000000010.checkpoint.parquet"));
  EXPECT_FALSE(std::filesystem::exists(log + "/_last_checkpoint"));
  for (int i = 11; i <= 20; i++) {
    f.produce("orders", order(i));
    ASSERT_EQ(f.lakestream("run").exit_code, 0);
  }
  EXPECT_TRUE(std::filesystem::exists(log + "/00000000000000000020.checkpoint.parquet"));
  EXPECT_EQ(nlohmann::json::parse(read_file(log + "/_last_checkpoint"))["version"], 20);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      bronze_orders has 21 events, each offset once"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("ok      orders has the newest state of all 21 orders"), std::string::npos) << check.out;
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(LakeShape, WithV2CheckpointsTheTombstonesGoToSidecarsAndAKillMidCheckpointLosesNothing) {
  // Compaction after every two small files: each compaction leaves tombstones for the checkpoints.
  PipelineFixture f("[lake]\ncheckpoint_policy = \"v2\"\ncompact_min_files = 2\n" + pipeline(""), {{"orders", 1}});
  std::string log = f.dir() + "/lake/bronze_orders/_delta_log";
  bool killed = false;
  for (int i = 0; i < 40; i++) {
    f.produce("orders", order(i));
    // Until the first checkpoint's sidecars are written and it is not yet published: killed there.
    std::vector<std::string> env;
    if (!killed) env.push_back("LAKESTREAM_FAULT=checkpoint_sidecars_written");
    CommandResult r = f.lakestream("run", {}, env);
    if (!killed && r.signal == 9) {
      killed = true;
      EXPECT_FALSE(std::filesystem::exists(log + "/_last_checkpoint"));
      EXPECT_TRUE(std::filesystem::exists(log + "/_sidecars")) << "the sidecars were written, the checkpoint not";
      continue;
    }
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  ASSERT_TRUE(killed);
  auto hint = nlohmann::json::parse(read_file(log + "/_last_checkpoint"));
  char name[64];
  std::snprintf(name, sizeof name, "/%020lld.checkpoint.parquet", static_cast<long long>(hint["version"].get<int64_t>()));
  std::string checkpoint = "'" + log + name + "'";
  EXPECT_EQ(f.query("select count(*) filter (where sidecar is not null) > 1 as sidecars, count(*) filter (where \"add\" is "
                    "not null or remove is not null) as inline from read_parquet(" + checkpoint + ")"),
            "sidecars,inline\ntrue,0\n");
  EXPECT_NE(f.query("select count(*) as n from read_parquet('" + log + "/_sidecars/*.parquet') where remove is not null"),
            "n\n0\n") << "compaction's tombstones are in sidecars";
  EXPECT_EQ(f.query("select count(*) as n, count(distinct order_id) as orders from bronze_orders"), "n,orders\n40,40\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      bronze_orders has 40 events, each offset once"), std::string::npos) << check.out;
  expect_other_readers_accept(f.dir() + "/lake");
}

}  // namespace
}  // namespace lakestream::testing
