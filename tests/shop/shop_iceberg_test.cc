// The shop with Iceberg metadata on every table (`[lake] iceberg = true`): after every send and
// run, icebird (an Iceberg reader on hyparquet, tests/interop/read_iceberg.mjs) reads bronze,
// silver and gold through metadata/version-hint.text alone, and its rows must be lakestream's;
// the Iceberg validator (tests/interop/iceberg_validator.mjs, written from the Iceberg spec)
// accepts every metadata file; check's report is the scenario's, word for word. A crash after a
// commit, before its Iceberg metadata, leaves the view one version behind until the next run.
#include <csignal>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>

#include "shop/shop_scenario.h"
#include "support/other_readers.h"
#include "support/shell.h"

namespace lakestream::testing {
namespace {

std::string shop_with_iceberg() {
  std::string toml = shop_pipeline();
  toml.replace(toml.find("[lake]\n"), 7, "[lake]\niceberg = true\n");
  return toml;
}

// The rows of `table` as lakestream reads them (JSON lines).
std::string lakestream_rows(PipelineFixture& f, const std::string& table) {
  CommandResult rows = f.lakestream("query", {"--format", "json", "select * from " + table});
  EXPECT_EQ(rows.exit_code, 0) << rows.err;
  return rows.out;
}

// icebird's rows of `table` are `expected` (JSON lines; by default lakestream's rows now).
void expect_icebird_reads(PipelineFixture& f, const std::string& table, const std::string& when,
                          std::optional<std::string> expected = std::nullopt) {
  std::string file = f.dir() + "/" + table + ".expected.jsonl";
  write_text(file, expected ? *expected : lakestream_rows(f, table));
  auto [status, report] = run_shell("node '" + source_dir() + "/tests/interop/read_iceberg.mjs' '" + f.dir() + "/lake/" + table +
                                "' '" + file + "'");
  EXPECT_EQ(status, 0) << when << ", " << table << ":\n" << report;
}

void expect_iceberg_valid(PipelineFixture& f, const std::string& when) {
  auto [status, report] = run_shell("node '" + source_dir() + "/tests/interop/iceberg_validator.mjs' '" + f.dir() + "/lake'");
  EXPECT_EQ(status, 0) << when << ":\n" << report;
}

// check's report, its lines on the Iceberg views apart: {the other lines, those lines}.
std::pair<std::string, std::string> check_lines(PipelineFixture& f) {
  CommandResult check = f.lakestream("check");
  std::string others, views, line;
  std::istringstream in(check.out);
  while (std::getline(in, line)) (line.find("'s Iceberg view") != std::string::npos ? views : others) += line + "\n";
  return {others, views};
}

// The Delta version the table's newest Iceberg metadata describes (version-hint.text's N - 1).
int64_t iceberg_version(PipelineFixture& f, const std::string& table) {
  return std::stoll(read_text(f.dir() + "/lake/" + table + "/metadata/version-hint.text")) - 1;
}

int64_t delta_version(PipelineFixture& f, const std::string& table) {
  int64_t newest = -1;
  for (const auto& entry : std::filesystem::directory_iterator(f.dir() + "/lake/" + table + "/_delta_log")) {
    std::string name = entry.path().filename().string();
    if (name.size() == 25 && name.ends_with(".json")) newest = std::max<int64_t>(newest, std::stoll(name.substr(0, 20)));
  }
  return newest;
}

TEST(ShopIceberg, IcebirdReadsEveryTableAsLakestreamDoesAfterEverySend) {
  PipelineFixture f(shop_with_iceberg(), {{"orders", 3}});
  int send = 0;
  play_shop(f, [&] {
    run_ok(f);
    std::string when = "after send " + std::to_string(++send);
    for (const std::string table : {"bronze_orders", "orders"}) {
      EXPECT_EQ(iceberg_version(f, table), delta_version(f, table)) << when;
      expect_icebird_reads(f, table, when);
    }
    if (send >= 3) expect_icebird_reads(f, "hourly_sales", when);  // written once the first hour closed
    expect_iceberg_valid(f, when);
  });
  // check's report is the scenario's, and each view is of its table's newest version.
  auto [others, views] = check_lines(f);
  EXPECT_EQ(others, expected_check("expected-check.txt"));
  EXPECT_EQ(views, "ok      bronze_orders's Iceberg view (v6) is of its newest version: 6 files, 11 rows\n"
                   "ok      orders's Iceberg view (v6) is of its newest version: 4 files, 9 rows\n"
                   "ok      hourly_sales's Iceberg view (v3) is of its newest version: 3 files, 3 rows\n");
  // recount rewrites the late hour: an overwrite snapshot, read the same way.
  ASSERT_EQ(f.lakestream("recount").exit_code, 0);
  expect_icebird_reads(f, "hourly_sales", "after the recount");
  // optimize compacts: a replace snapshot, the same rows.
  for (const std::string table : {"bronze_orders", "orders", "hourly_sales"}) {
    CommandResult optimized = f.lakestream("optimize", {table});
    ASSERT_EQ(optimized.exit_code, 0) << optimized.err;
    expect_icebird_reads(f, table, "after optimize");
  }
  EXPECT_NE(read_text(f.dir() + "/lake/bronze_orders/metadata/v" + std::to_string(iceberg_version(f, "bronze_orders") + 1) +
                      ".metadata.json")
                .find("\"operation\": \"replace\""),
            std::string::npos)
      << "optimize's commit is a replace snapshot";
  expect_iceberg_valid(f, "after the recount and optimize");
  expect_other_readers_accept(f.dir() + "/lake");
  // vacuum deletes the files optimize replaced and the older Iceberg views, never the newest.
  CommandResult vacuum = f.lakestream("vacuum", {"bronze_orders", "--retain", "0s", "--unsafe-retention"});
  ASSERT_EQ(vacuum.exit_code, 0) << vacuum.err;
  EXPECT_NE(vacuum.out.find(" of older Iceberg views\n"), std::string::npos) << vacuum.out;
  int64_t newest = iceberg_version(f, "bronze_orders");
  EXPECT_TRUE(std::filesystem::exists(f.dir() + "/lake/bronze_orders/metadata/v" + std::to_string(newest + 1) + ".metadata.json"));
  EXPECT_FALSE(std::filesystem::exists(f.dir() + "/lake/bronze_orders/metadata/v1.metadata.json"));
  expect_icebird_reads(f, "bronze_orders", "after vacuum");
  expect_iceberg_valid(f, "after vacuum");
}

// Sends the shop's batch `batch` and runs every stream.
void send_and_run(PipelineFixture& f, const std::string& batch) {
  f.produce("orders", shop_batches().at(batch), "order_id");
  run_ok(f);
}

TEST(ShopIceberg, ACrashBeforeTheIcebergMetadataLeavesItOneVersionBehindUntilTheNextRun) {
  PipelineFixture f(shop_with_iceberg(), {{"orders", 3}});
  send_and_run(f, "1");
  expect_icebird_reads(f, "bronze_orders", "after send 1");
  std::string first = lakestream_rows(f, "bronze_orders");
  f.produce("orders", shop_batches().at("2"), "order_id");
  CommandResult crashed = f.lakestream("run", {"read_orders"}, {"LAKESTREAM_FAULT=before_iceberg_metadata"});
  ASSERT_EQ(crashed.signal, SIGKILL) << crashed.out << crashed.err;
  // The commit is in; the Iceberg view still shows the version before it, whole.
  EXPECT_EQ(iceberg_version(f, "bronze_orders"), delta_version(f, "bronze_orders") - 1);
  expect_icebird_reads(f, "bronze_orders", "the view one version behind", first);
  EXPECT_NE(f.lakestream("status").out.find("Iceberg view of version 0, 1 version behind the table's (the next commit or run "
                                            "writes it)"),
            std::string::npos);
  EXPECT_NE(check_lines(f).second.find("note    bronze_orders's Iceberg view is of version 0, the table is at version 1 (a run "
                                        "stopped between a commit and its view): the next commit or lakestream run writes it"),
            std::string::npos);
  // The next run catches it up before its first batch, with nothing new to read.
  run_ok(f, {"read_orders"});
  EXPECT_EQ(iceberg_version(f, "bronze_orders"), delta_version(f, "bronze_orders"));
  expect_icebird_reads(f, "bronze_orders", "after the next run");
  expect_iceberg_valid(f, "after the next run");
  EXPECT_NE(check_lines(f).second.find("ok      bronze_orders's Iceberg view (v2) is of its newest version"), std::string::npos);
  CommandResult status = f.lakestream("status");
  EXPECT_NE(status.out.find("Iceberg view of version 1\n"), std::string::npos) << status.out;
  EXPECT_NE(f.lakestream("status", {"--json"}).out.find("\"icebergVersion\": 1"), std::string::npos);
  // A view that lists other rows than its version is check's PROBLEM.
  std::string view_file = f.dir() + "/lake/bronze_orders/metadata/v2.metadata.json";
  std::string view = read_text(view_file);
  view.replace(view.find("\"total-records\": \"6\""), 22, "\"total-records\": \"5\"");
  write_text(view_file, view);
  EXPECT_NE(check_lines(f).second.find("PROBLEM bronze_orders's Iceberg view v2 says version 1 with 2 files and 5 rows; the "
                                       "table's version 1 has 2 files and 6 rows."),
            std::string::npos)
      << check_lines(f).second;
}

TEST(ShopIceberg, ANewFieldGetsANewFieldIdAndIcebirdReadsOldAndNewFiles) {
  PipelineFixture f(shop_with_iceberg(), {{"orders", 3}});
  send_and_run(f, "1");
  // The source gains a field: bronze and silver a column, with the next field id.
  std::string toml = shop_with_iceberg();
  toml.replace(toml.find("event_time = \"timestamp\"\n"), 25, "event_time = \"timestamp\"\nchannel = \"string\"\n");
  f.write_pipeline(toml);
  f.produce("orders", R"({"order_id":1010,"customer_id":"C07","status":"placed","amount":12.50,"event_time":"2026-10-01T09:55:00Z","channel":"app"}
)", "order_id");
  run_ok(f);
  for (const std::string table : {"bronze_orders", "orders"}) expect_icebird_reads(f, table, "after the new field");
  std::string view = read_text(f.dir() + "/lake/bronze_orders/metadata/v" + std::to_string(iceberg_version(f, "bronze_orders") + 1) +
                               ".metadata.json");
  EXPECT_NE(view.find("\"name\": \"channel\""), std::string::npos) << view;
  EXPECT_EQ(f.query("select count(channel) as with_channel from bronze_orders"), "with_channel\n1\n");
  expect_iceberg_valid(f, "after the new field");
}

TEST(ShopIceberg, RandomKillsLeaveViewsIcebirdReadsAsLakestream) {
  PipelineFixture f(shop_with_iceberg(), {{"orders", 3}});
  std::mt19937 rng(25);
  std::uniform_int_distribution<int> delay_ms(0, 300);
  int killed = 0;
  play_shop(f, [&] {
    for (int i = 0; i < 2; i++) killed += f.lakestream_killed_after(delay_ms(rng), "run").signal == SIGKILL;
    run_ok(f);
  });
  EXPECT_GT(killed, 3) << "most runs should have been killed mid-way";
  for (const std::string table : {"bronze_orders", "orders", "hourly_sales"}) {
    EXPECT_EQ(iceberg_version(f, table), delta_version(f, table)) << table;
    expect_icebird_reads(f, table, "after the kills");
  }
  expect_iceberg_valid(f, "after the kills");
  EXPECT_EQ(check_lines(f).first, expected_check("expected-check.txt"));
}

}  // namespace
}  // namespace lakestream::testing
