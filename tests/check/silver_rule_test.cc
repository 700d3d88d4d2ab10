// Silver's one rule, whatever the batching: the row of a key is its newest event by (order_by,
// partition, offset), of identical copies the newest. The stream and check agree.
#include "check/clicks_pipeline.h"

namespace lakestream::testing {
namespace {

const char* kSchema = "order_id = \"bigint\"\nstatus = \"string\"\nevent_time = \"timestamp\"\n";
const char* kLatest = "[streams.latest_orders]\nkind = \"latest\"\nfrom = \"bronze_clicks\"\ntable = \"orders\"\n"
                      "key = [\"order_id\"]\norder_by = \"event_time\"\nentity = \"order\"\n";

std::string status_at(int id, const std::string& status, const std::string& hhmm) {
  return "{\"order_id\":" + std::to_string(id) + ",\"status\":\"" + status + "\",\"event_time\":\"2026-10-01T" +
         hhmm.substr(0, 2) + ":" + hhmm.substr(2, 2) + ":00Z\"}\n";
}

TEST(SilverRule, ATieAcrossRunsGoesToTheLaterOffset) {
  PipelineFixture f(clicks_pipeline(kSchema, kLatest), {{"clicks", 1}});
  send_and_run(f, status_at(1, "placed", "0901") + status_at(2, "placed", "0902"));
  // Run 2: order 1 cancelled at the same minute, at a later offset.
  send_and_run(f, status_at(1, "cancelled", "0901"));
  EXPECT_EQ(f.query("select order_id, status from orders order by 1"), "order_id,status\n1,cancelled\n2,placed\n");
  expect_check(f,
               "ok      bronze_clicks has 3 events, each offset once\n"
               "ok      orders has the newest state of all 2 orders\n");

  // An identical resend of the row the table holds, at a later offset: its values stay, its
  // position is the resend's (the ties of later batches are the newest copy's).
  f.produce("clicks", status_at(1, "cancelled", "0901"));
  CommandResult run = f.lakestream("run");
  EXPECT_NE(run.out.find("latest_orders: batch 2: 1 in, 1 out"), std::string::npos) << run.out << run.err;
  EXPECT_EQ(f.query("select order_id, status, \"offset\" from orders order by 1"),
            "order_id,status,offset\n1,cancelled,3\n2,placed,1\n");
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

TEST(SilverRule, TheSameEventsInOneRunOrInManyGiveTheSameTable) {
  std::vector<std::string> events = {status_at(1, "placed", "0901"), status_at(1, "paid", "0901"),
                                     status_at(2, "placed", "0905"), status_at(1, "placed", "0901"),
                                     status_at(2, "shipped", "0904"), status_at(3, "placed", "0900"),
                                     status_at(3, "placed", "0900")};
  std::string all;
  for (const auto& e : events) all += e;
  PipelineFixture at_once(clicks_pipeline(kSchema, kLatest), {{"clicks", 1}});
  send_and_run(at_once, all);
  PipelineFixture one_by_one(clicks_pipeline(kSchema, kLatest), {{"clicks", 1}});
  for (const auto& e : events) send_and_run(one_by_one, e);
  std::string sql = "select order_id, status, strftime(event_time, '%H:%M') as t, \"offset\" from orders order by 1";
  // Order 1: placed, paid and placed again tie at 09:01; the last offset wins. Order 3 is sent
  // twice in a row: the row is the resend's, read in the same run as its first copy or after it.
  EXPECT_EQ(at_once.query(sql), "order_id,status,t,offset\n1,placed,09:01,3\n2,placed,09:05,2\n3,placed,09:00,6\n");
  EXPECT_EQ(one_by_one.query(sql), at_once.query(sql));
  EXPECT_EQ(one_by_one.lakestream("check").exit_code, 0);
  EXPECT_EQ(at_once.lakestream("check").exit_code, 0);
}

TEST(SilverRule, ANullInAKeyColumnIsAValueLikeAnyOther) {
  // Composite key (region, order_id), a NULL first key column (the one files are pruned by): region NULL is one entity, kept and updated, never dropped.
  const char* schema = "order_id = \"bigint\"\nregion = \"string\"\nstatus = \"string\"\nevent_time = \"timestamp\"\n";
  const char* latest = "[streams.latest_orders]\nkind = \"latest\"\nfrom = \"bronze_clicks\"\ntable = \"orders\"\n"
                       "key = [\"region\", \"order_id\"]\norder_by = \"event_time\"\nentity = \"order\"\n";
  auto event = [](int id, const char* region, const char* status, const char* hhmm) {
    std::string r = region ? std::string("\"") + region + "\"" : "null";
    return "{\"order_id\":" + std::to_string(id) + ",\"region\":" + r + ",\"status\":\"" + status +
           "\",\"event_time\":\"2026-10-01T" + std::string(hhmm).substr(0, 2) + ":" + std::string(hhmm).substr(2, 2) +
           ":00Z\"}\n";
  };
  PipelineFixture f(clicks_pipeline(schema, latest), {{"clicks", 1}});
  send_and_run(f, event(1, nullptr, "placed", "0901") + event(1, "eu", "placed", "0902"));
  send_and_run(f, event(1, nullptr, "shipped", "0910"));
  send_and_run(f, event(1, nullptr, "placed", "0905"));  // older: changes nothing
  EXPECT_EQ(f.query("select order_id, region, status from orders order by region nulls first"),
            "order_id,region,status\n1,,shipped\n1,eu,placed\n");  // csv: NULL is empty
  expect_check(f,
               "ok      bronze_clicks has 4 events, each offset once\n"
               "ok      orders has the newest state of all 2 orders\n");
}

}  // namespace
}  // namespace lakestream::testing
