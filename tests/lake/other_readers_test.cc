// The lake as other Delta readers see it: a derived ::TIMESTAMP column, a partition by a
// timestamp, a schema change, a compaction, and the rules another writer (Spark) sets on a table
// (a column comment, append-only, an invariant), each proven on the raw log and then by the
// interop check (the validator written from PROTOCOL.md and two independent Parquet readers).
#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "orders_pipeline.h"
#include "support/other_readers.h"
#include "support/pipeline_fixture.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

using nlohmann::json;

// Bronze partitioned by a timestamp, with derived columns DuckDB types as plain TIMESTAMP.
std::string pipeline(const std::string& extra_fields) {
  return orders_pipeline(extra_fields, "decimal(18,2)", "[\"hour\"]",
                         "hour = \"date_trunc('hour', event_time)\"\n"
                         "local_time = \"event_time::TIMESTAMP\"\n"
                         "parsed = \"strptime('2026-10-01 09:00', '%Y-%m-%d %H:%M')\"\n");
}

// Order `id`'s event at 09:<minute>, by default 09:1<id>.
std::string order(int id, const std::string& status, const std::string& amount, const std::string& extra = "",
                  int minute = -1) {
  return "{\"order_id\":" + std::to_string(id) + ",\"status\":\"" + status + "\",\"amount\":" + amount +
         ",\"event_time\":\"2026-10-01T09:" + std::to_string(minute >= 0 ? minute : 10 + id) + ":00Z\"" + extra +
         "}\n";
}

std::string log_dir(const PipelineFixture& f, const std::string& table) { return f.dir() + "/lake/" + table + "/_delta_log"; }

int64_t latest_version(const PipelineFixture& f, const std::string& table) {
  int64_t latest = -1;
  for (const auto& entry : std::filesystem::directory_iterator(log_dir(f, table))) {
    std::string name = entry.path().filename().string();
    if (name.size() == 25 && name.ends_with(".json")) latest = std::max<int64_t>(latest, std::stoll(name.substr(0, 20)));
  }
  return latest;
}

std::string commit_path(const PipelineFixture& f, const std::string& table, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld.json", static_cast<long long>(version));
  return log_dir(f, table) + "/" + name;
}

// The newest metaData action of the table, from its JSON commits.
json newest_metadata(const PipelineFixture& f, const std::string& table) {
  json found;
  for (int64_t v = 0; v <= latest_version(f, table); v++) {
    std::istringstream lines(read_file(commit_path(f, table, v)));
    std::string line;
    while (std::getline(lines, line))
      if (auto action = json::parse(line); action.contains("metaData")) found = action["metaData"];
  }
  return found;
}

json field(const json& metadata, const std::string& name) {
  json schema = json::parse(metadata["schemaString"].get<std::string>());
  for (const auto& field : schema["fields"])
    if (field["name"] == name) return field;
  return nullptr;
}

// Another writer changes the table's metaData: `change` edits it, and the commit goes in as the
// next version, as Spark's ALTER TABLE would write it.
template <typename Change>
void other_writer_alters(const PipelineFixture& f, const std::string& table, Change change) {
  json metadata = newest_metadata(f, table);
  json schema = json::parse(metadata["schemaString"].get<std::string>());
  change(metadata, schema);
  metadata["schemaString"] = schema.dump();
  json info = {{"timestamp", 1}, {"operation", "SET TBLPROPERTIES"}, {"operationParameters", json::object()},
               {"engineInfo", "Apache-Spark/3.5.0 Delta-Lake/3.2.0"}};
  write_text(commit_path(f, table, latest_version(f, table) + 1),
             json{{"commitInfo", info}}.dump() + "\n" + json{{"metaData", metadata}}.dump() + "\n");
}

void set_field_metadata(json& schema, const std::string& name, const std::string& key, const std::string& value) {
  for (auto& field : schema["fields"])
    if (field["name"] == name) field["metadata"][key] = value;
}

TEST(OtherReaders, TheLakeFollowsTheSpecAndTheRulesOtherWritersSet) {
  PipelineFixture f(pipeline(""), {{"orders", 1}});
  f.produce("orders", order(1, "placed", "10.00") + order(2, "placed", "20.00"), "order_id");
  CommandResult run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.err;

  // Plain TIMESTAMP columns are Delta timestamps (UTC instants) under protocol (1, 2).
  json bronze_meta = newest_metadata(f, "bronze_orders");
  EXPECT_EQ(field(bronze_meta, "local_time")["type"], "timestamp");
  EXPECT_EQ(field(bronze_meta, "parsed")["type"], "timestamp");
  EXPECT_NE(read_file(commit_path(f, "bronze_orders", 0)).find(R"({"protocol":{"minReaderVersion":1,"minWriterVersion":2}})"),
            std::string::npos);
  // The timestamp partition value is ISO-8601 UTC.
  EXPECT_NE(read_file(commit_path(f, "bronze_orders", 0)).find(R"("partitionValues":{"hour":"2026-10-01T09:00:00.000000Z"})"),
            std::string::npos);
  EXPECT_EQ(f.query("select local_time, parsed from bronze_orders where order_id = 1"),
            "local_time,parsed\n2026-10-01 09:11:00+00,2026-10-01 09:00:00+00\n");

  // Another writer documents a column and the table; a schema change keeps both.
  other_writer_alters(f, "bronze_orders", [](json& metadata, json& schema) {
    metadata["description"] = "every order event";
    set_field_metadata(schema, "status", "comment", "placed or paid");
  });
  f.write_pipeline(pipeline("coupon = \"string\"\n"));
  f.produce("orders", order(3, "placed", "30.00", ",\"coupon\":\"NEW\""), "order_id");
  run = f.lakestream("run");
  ASSERT_EQ(run.exit_code, 0) << run.err;
  json evolved = newest_metadata(f, "bronze_orders");
  ASSERT_FALSE(field(evolved, "coupon").is_null());
  EXPECT_EQ(evolved["description"], "every order event");
  EXPECT_EQ(field(evolved, "status")["metadata"]["comment"], "placed or paid");

  // Silver made append-only by another writer: an update (a MERGE removing a file) is refused.
  other_writer_alters(f, "orders", [](json& metadata, json&) { metadata["configuration"]["delta.appendOnly"] = "true"; });
  int64_t silver_before = latest_version(f, "orders");
  f.produce("orders", order(1, "paid", "10.00", "", 50), "order_id");
  run = f.lakestream("run");
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("is append-only (delta.appendOnly = true), and this MERGE would remove"), std::string::npos)
      << run.err;
  EXPECT_EQ(latest_version(f, "orders"), silver_before);

  // An invariant on bronze: a batch holding a row that breaks it is not committed.
  other_writer_alters(f, "bronze_orders", [](json&, json& schema) {
    set_field_metadata(schema, "amount", "delta.invariants", R"({"expression":{"expression":"amount > 0"}})");
  });
  int64_t bronze_before = latest_version(f, "bronze_orders");
  f.produce("orders", order(4, "placed", "-5.00"), "order_id");
  run = f.lakestream("run", {"read_orders"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_NE(run.err.find("breaks the invariant of column amount (amount > 0)"), std::string::npos) << run.err;
  EXPECT_EQ(latest_version(f, "bronze_orders"), bronze_before);

  // A compaction (dataChange = false) is allowed on both.
  CommandResult optimize = f.lakestream("optimize", {"bronze_orders"});
  EXPECT_EQ(optimize.exit_code, 0) << optimize.err;
  expect_other_readers_accept(f.dir() + "/lake");
}

TEST(OtherReaders, SparksOwnTablesPassTheValidator) {
  auto [status, report] = run_other_readers(test_data_dir() + "/dat", /*log_only=*/true);
  EXPECT_EQ(status, 0) << report;
  EXPECT_NE(report.find("ok " + test_data_dir() + "/dat/with_checkpoint/delta: 4 versions and 1 checkpoints valid"),
            std::string::npos) << report;
}

// The validator accepts the golden tables lakestream reads, and rejects exactly the one that
// neither reads (tests/data/golden/README.md).
TEST(OtherReaders, TheValidatorAgreesWithTheFeatureGateOnTheGoldenTables) {
  auto [status, report] = run_other_readers(test_data_dir() + "/golden", /*log_only=*/true);
  EXPECT_EQ(status, 1) << report;
  std::string failed;
  std::istringstream lines(report);
  std::string line;
  int ok = 0;
  while (std::getline(lines, line)) {
    if (line.starts_with("ok ")) ok++;
    if (line.starts_with("FAIL ")) failed += std::filesystem::path(line.substr(5)).parent_path().filename().string() + " ";
  }
  EXPECT_EQ(ok, 29) << report;
  EXPECT_EQ(failed, "deltalog-invalid-protocol-version ") << report;
}

}  // namespace
}  // namespace lakestream::testing
