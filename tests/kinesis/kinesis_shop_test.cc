// The shop scenario with its orders in a Kinesis data stream of 3 shards instead of a Kafka topic,
// put by the AWS SDK's client with the order id as partition key: the three tables and check's
// lines are those of tests/data/shop, word for word, and recount corrects the same hour.
#include "kinesis/kinesis_fixture.h"
#include "shop/shop_scenario.h"

namespace lakestream::testing {
namespace {

// The example pipeline reading the Kinesis stream `orders` at @KINESIS@, with no [kafka].
std::string kinesis_shop_pipeline() {
  std::string toml = shop_pipeline();
  size_t kafka = toml.find("[kafka]\n");
  size_t next = toml.find("\n[", kafka + 1);
  toml.erase(kafka, next + 1 - kafka);
  return replaced(toml, "topic = \"orders\"\n", "kinesis = \"orders\"\nendpoint = \"@KINESIS@\"\n");
}

// Puts batches 1 2 3 3 4 5 (3 twice: the shop's system sends it again), running the streams after each.
void play_shop_on_kinesis(KinesisFixture& f) {
  auto batches = shop_batches();
  for (const std::string batch : {"1", "2", "3", "3", "4", "5"}) {
    nlohmann::json records = nlohmann::json::array();
    std::istringstream lines(batches.at(batch));
    for (std::string line; std::getline(lines, line);)
      if (!line.empty())
        records.push_back({{"data", line}, {"key", std::to_string(nlohmann::json::parse(line).at("order_id").get<int64_t>())}});
    f.kinesis().put("orders", records);
    CommandResult r = f.lakestream("run");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
}

TEST(KinesisShop, TheScenarioGivesTheSameTablesAndCheckLines) {
  KinesisFixture f(kinesis_shop_pipeline());
  f.kinesis().create("orders", 3);
  play_shop_on_kinesis(f);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 0);
  expect_shop_silver_and_gold(f.pipeline());
  // Bronze: every record Kinesis holds, the resent ones included, each shard's numbered from 0.
  EXPECT_EQ(f.query("select count(*) as events, count(distinct (partition, \"offset\")) as offsets, "
                    "count(distinct order_id) as orders, count(distinct partition) as shards, "
                    "bool_and(key = order_id::VARCHAR) as keyed from bronze_orders"),
            "events,offsets,orders,shards,keyed\n11,11,9,3,true\n");
  // why names the stream, each copy's shard and arrival time, and follows both copies of the
  // resent order 1005 through silver and gold.
  CommandResult why = f.lakestream("why", {"order_id=1005"});
  EXPECT_EQ(why.exit_code, 0) << why.err;
  EXPECT_EQ(why.out.rfind("orders partition ", 0), 0u) << why.out;
  EXPECT_NE(why.out.find(" offset 1, key 1005, sent 20"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("  counted     hourly_sales: in the hour 2026-10-01 11:00"), std::string::npos) << why.out;
  EXPECT_NE(why.out.find("  duplicate   hourly_sales: a copy of partition "), std::string::npos) << why.out;
  expect_recount_corrects_nine_oclock(f.pipeline());
}

}  // namespace
}  // namespace lakestream::testing
