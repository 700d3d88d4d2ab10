// A lake written under column mapping, as a user turns it on: `[lake] column_mapping = "id"` for
// every table and a stream's own `column_mapping = "name"`. Bronze (partitioned, quarantine
// beside it), silver merged on read and gold windows are written under physical names; a new
// field evolves them with new ids; a latest stream merges, check recomputes every table from
// bronze, and the interop check reads the lake.
#include <nlohmann/json.hpp>

#include "orders_pipeline.h"
#include "support/other_readers.h"
#include "support/pipeline_fixture.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

using nlohmann::json;

std::string pipeline(const std::string& extra_fields) {
  return "[lake]\ncolumn_mapping = \"id\"\n" + orders_pipeline(extra_fields) + R"toml(deletion_vectors = true

[streams.hourly_sales]
kind = "window"
from = "bronze_orders"
table = "hourly_sales"
column_mapping = "name"
event_time = "event_time"
watermark = "1 hour"
window = "1 hour"
group_by = ["status"]
output = "update"
[streams.hourly_sales.aggregates]
orders = "count(*)"
revenue = "sum(amount)"
)toml";
}

std::string order(int id, const std::string& status, const std::string& amount, int minute,
                  const std::string& extra = "") {
  return "{\"order_id\":" + std::to_string(id) + ",\"status\":\"" + status + "\",\"amount\":" + amount +
         ",\"event_time\":\"2026-10-01T09:" + std::to_string(minute) + ":00Z\"" + extra + "}\n";
}

// The table's newest metaData action, from its raw log.
json newest_metadata(const PipelineFixture& f, const std::string& table) {
  json found;
  std::string log = f.dir() + "/lake/" + table + "/_delta_log";
  for (int v = 0;; v++) {
    char name[32];
    std::snprintf(name, sizeof name, "/%020d.json", v);
    if (!path_exists(log + name)) break;
    std::istringstream lines(read_file(log + name));
    for (std::string line; std::getline(lines, line);)
      if (json action = json::parse(line); action.contains("metaData")) found = action["metaData"];
  }
  return found;
}

TEST(ColumnMappedLake, EveryTableWrittenUnderPhysicalNamesChecksOk) {
  PipelineFixture f(pipeline(""), {{"orders", 2}});
  f.produce("orders",
            order(1, "placed", "10.00", 10) + order(2, "placed", "20.00", 20) + "not json\n" +
                order(1, "paid", "10.00", 30),
            "order_id");
  CommandResult run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.err;

  for (const auto& [table, mode] : std::vector<std::pair<std::string, std::string>>{
           {"bronze_orders", "id"}, {"bronze_orders_quarantine", "id"}, {"orders", "id"}, {"hourly_sales", "name"}}) {
    json metadata = newest_metadata(f, table);
    EXPECT_EQ(metadata["configuration"]["delta.columnMapping.mode"], mode) << table;
    json schema = json::parse(metadata["schemaString"].get<std::string>());
    for (const auto& field : schema["fields"])
      EXPECT_TRUE(field["metadata"]["delta.columnMapping.physicalName"].get<std::string>().starts_with("col-"))
          << table << "." << field["name"];
  }
  // Bronze's partition folders are named by the physical name of dt.
  EXPECT_EQ(list_dir_count(f.dir() + "/lake/bronze_orders"), 2) << "the log and one dt folder";

  // A new field evolves bronze and silver; the new column gets the next id.
  f.write_pipeline(pipeline("coupon = \"string\"\n"));
  f.produce("orders", order(2, "paid", "20.00", 40, ",\"coupon\":\"FALL\"") + order(3, "placed", "30.00", 50), "order_id");
  run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json silver = newest_metadata(f, "orders");
  int64_t max_id = std::stoll(silver["configuration"]["delta.columnMapping.maxColumnId"].get<std::string>());
  json last = json::parse(silver["schemaString"].get<std::string>())["fields"].back();
  EXPECT_EQ(last["name"], "coupon");
  EXPECT_EQ(last["metadata"]["delta.columnMapping.id"], max_id);

  EXPECT_EQ(f.query("select order_id, status, coalesce(coupon, '-') as coupon from orders order by order_id"),
            "order_id,status,coupon\n1,paid,-\n2,paid,FALL\n3,placed,-\n");
  EXPECT_EQ(f.query("select status, orders, revenue from hourly_sales order by status"),
            "status,orders,revenue\npaid,2,30.00\nplaced,3,60.00\n");
  EXPECT_EQ(f.query("select count(*) as n from bronze_orders_quarantine"), "n\n1\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("ok      orders has the newest state of all 3 orders"), std::string::npos) << check.out;
  expect_other_readers_accept(f.dir() + "/lake");
}

}  // namespace
}  // namespace lakestream::testing
