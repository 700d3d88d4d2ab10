// The shop scenario with its tables on a real storage emulator (s3rver, Azurite): every table holds
// what a local run writes, check prints the shop's lines, query, check and recount read the
// tables through the cache, the cache keeps to its cap, and the store's secret is nowhere in what
// lakestream printed or wrote.
#include <filesystem>
#include <sstream>

#include "faults/messy_lake.h"
#include "lake_on_store/store_lake.h"
#include "support/shell.h"
#include "table/delta_table.h"
#include "table/table_files.h"

namespace lakestream::testing {
namespace {

namespace fs = std::filesystem;

class ShopOnStore : public ::testing::TestWithParam<Emulator> {};

// A run that must succeed; what it printed.
std::string run_printing(PipelineFixture& f) {
  CommandResult r = f.lakestream("run");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.out + r.err;
}

std::string local_contents() {
  PipelineFixture local(shop_pipeline(), {{"orders", 3}});
  play_shop(local, [&] { run_ok(local); });
  return lake_contents(local, /*with_quarantine=*/false);
}

int64_t cached_bytes(const std::string& dir) {
  int64_t total = 0;
  if (!fs::exists(dir + "/cache/files")) return 0;
  for (const auto& entry : fs::directory_iterator(dir + "/cache/files")) total += static_cast<int64_t>(entry.file_size());
  return total;
}

TEST_P(ShopOnStore, TablesEqualALocalRunAndCheckPrintsTheShopsLines) {
  const std::string expected = local_contents();
  StoreEmulator store(GetParam());
  PipelineFixture f(with_lake(shop_pipeline(), store.lake_section("shop")), {{"orders", 3}});
  std::string printed;
  play_shop(f, [&] { printed += run_printing(f); });

  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 0);
  std::string contents = lake_contents(f, /*with_quarantine=*/false);
  EXPECT_TRUE(contents == expected) << first_difference(expected, contents);

  // The tables are on the store, not on the local disk.
  EXPECT_FALSE(fs::exists(f.dir() + "/lake"));
  auto objects = storage::open_store(store.url("shop"), store.settings())->list("");
  std::set<std::string> keys;
  for (const auto& object : objects) keys.insert(object.key);
  for (const char* table : {"bronze_orders", "orders", "hourly_sales"})
    EXPECT_TRUE(keys.count(std::string(table) + "/_delta_log/00000000000000000000.json")) << table;

  // No secret in any output, progress record or commit.
  printed += check.out + check.err;
  for (const auto& entry : fs::recursive_directory_iterator(f.dir() + "/checkpoints"))
    if (entry.is_regular_file()) printed += read_text(entry.path());
  auto root = storage::open_store(store.url("shop"), store.settings());
  for (const auto& object : objects)
    if (object.key.find("/_delta_log/") != std::string::npos && object.key.ends_with(".json")) printed += *root->get(object.key);
  EXPECT_EQ(printed.find(store.secret()), std::string::npos);
  EXPECT_NE(printed.find("bronze_orders"), std::string::npos);  // the search looked at real text

  // The bronze batches waited for the store (their commits at least) and say how long, each
  // within its addBatch.
  std::istringstream progress(read_text(f.dir() + "/checkpoints/read_orders/progress.jsonl"));
  int64_t store_wait_ms = 0;
  for (std::string line; std::getline(progress, line);) {
    const auto ms = nlohmann::json::parse(line)["durationMs"];
    store_wait_ms += ms.value("addBatchStoreWait", int64_t{0});
    EXPECT_LE(ms.value("addBatchStoreWait", int64_t{0}), ms.value("addBatch", int64_t{0}) + 1) << ms.dump();
  }
  EXPECT_GT(store_wait_ms, 0);
}

TEST_P(ShopOnStore, RecountAndQueryReadTheTablesOnTheStore) {
  StoreEmulator store(GetParam());
  PipelineFixture f(with_lake(shop_pipeline(), store.lake_section("shop")), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  expect_recount_corrects_nine_oclock(f);
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders, revenue from hourly_sales order by hour"),
            "h,orders,revenue\n09:00,4,90.50\n10:00,2,55.00\n11:00,1,18.25\n");
  // A fresh cache (another machine) reads the same.
  fs::remove_all(f.dir() + "/cache");
  EXPECT_EQ(f.query("select count(*) as events from bronze_orders"), "events\n11\n");
  EXPECT_GT(cached_bytes(f.dir()), 0);
}

TEST_P(ShopOnStore, TheCacheKeepsToItsCap) {
  // With a cap far below the lake, each command leaves only the copies it read itself: the
  // copies of files the run wrote and later replaced (silver's and gold's rewrites) are evicted.
  // With the default cap they stay, which shows it is the cap that evicted them.
  StoreEmulator store(GetParam());
  auto play = [&](const std::string& extra) {
    auto f = std::make_unique<PipelineFixture>(with_lake(shop_pipeline(), store.lake_section(extra.empty() ? "big" : "small", 0, extra)),
                                               std::vector<TopicSpec>{{"orders", 3}});
    play_shop(*f, [&] { run_ok(*f); });
    EXPECT_EQ(f->query("select count(*) as n from orders"), "n\n9\n");
    return f;
  };
  auto small = play("cache_size = \"1 KiB\"\n");
  auto big = play("");

  delta::configure_table_stores({store.settings(), small->dir() + "/unused-cache", 10LL << 30});
  auto live_bytes = [&](const std::string& prefix) {
    int64_t total = 0;
    for (const char* table : {"bronze_orders", "orders", "hourly_sales"}) {
      for (const auto& file : delta::load_snapshot(store.url(prefix + "/" + table)).files) total += file.size;
    }
    return total;
  };
  EXPECT_EQ(cached_bytes(small->dir()), live_bytes("small"));
  EXPECT_GT(cached_bytes(big->dir()), live_bytes("big"));
}

TEST_P(ShopOnStore, OptimizeAndVacuumWorkOnTheStore) {
  StoreEmulator store(GetParam());
  PipelineFixture f(with_lake(shop_pipeline(), store.lake_section("shop")), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  const std::string before = lake_contents(f, /*with_quarantine=*/false);
  auto bronze_files = [&] {
    int n = 0;
    for (const auto& object : storage::open_store(store.url("shop/bronze_orders"), store.settings())->list(""))
      if (object.key.ends_with(".parquet") && !object.key.starts_with("_delta_log/")) n++;
    return n;
  };
  const int written = bronze_files();
  ASSERT_GT(written, 1);

  CommandResult optimize = f.lakestream("optimize", {"bronze_orders", "--target-size", "128MB"});
  ASSERT_EQ(optimize.exit_code, 0) << optimize.err;
  EXPECT_EQ(bronze_files(), written + 1);  // the merged file; the small ones stay for older versions
  CommandResult vacuum = f.lakestream("vacuum", {"bronze_orders", "--retain", "0s", "--unsafe-retention"});
  ASSERT_EQ(vacuum.exit_code, 0) << vacuum.err;
  EXPECT_EQ(bronze_files(), 1);
  std::string after = lake_contents(f, /*with_quarantine=*/false);
  EXPECT_TRUE(after == before) << first_difference(before, after);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
}

TEST_P(ShopOnStore, EachTableWhereItsLocationSays) {
  // Bronze in the local folder, silver and gold on the store under names of their own.
  const std::string expected = local_contents();
  StoreEmulator store(GetParam());
  const std::string lake = "[lake]\ntables = \"lake\"\n[lake.table_locations]\norders = \"" + store.url("mixed/silver") +
                           "\"\nhourly_sales = \"" + store.url("mixed/gold") + "\"\n" + store.storage_section();
  PipelineFixture f(with_lake(shop_pipeline(), lake), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  std::string contents = lake_contents(f, /*with_quarantine=*/false);
  EXPECT_TRUE(contents == expected) << first_difference(expected, contents);
  EXPECT_TRUE(fs::exists(f.dir() + "/lake/bronze_orders/_delta_log/00000000000000000000.json"));
  EXPECT_FALSE(fs::exists(f.dir() + "/lake/orders"));
  auto root = storage::open_store(store.url("mixed"), store.settings());
  EXPECT_TRUE(root->get("silver/_delta_log/00000000000000000000.json"));
  EXPECT_TRUE(root->get("gold/_delta_log/00000000000000000000.json"));
}

// Iceberg views of tables on the store name the store's files: a copy of each table's objects,
// read by icebird through the view with the store's URLs mapped to the copy, has lakestream's rows.
TEST_P(ShopOnStore, IcebergViewsOnTheStoreNameItsFiles) {
  StoreEmulator store(GetParam());
  PipelineFixture f(with_lake(shop_pipeline(), store.lake_section("shop", 0, "iceberg = true\n")), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  auto root = storage::open_store(store.url("shop"), store.settings());
  for (const auto& object : root->list("")) write_text(f.dir() + "/copy/" + object.key, *root->get(object.key));
  for (const std::string table : {"bronze_orders", "orders", "hourly_sales"}) {
    std::string view = read_text(f.dir() + "/copy/" + table + "/metadata/v" +
                                 read_text(f.dir() + "/copy/" + table + "/metadata/version-hint.text") + ".metadata.json");
    EXPECT_NE(view.find("\"location\": \"" + store.url("shop") + "/" + table + "\""), std::string::npos) << view;
    CommandResult rows = f.lakestream("query", {"--format", "json", "select * from " + table});
    ASSERT_EQ(rows.exit_code, 0) << rows.err;
    write_text(f.dir() + "/" + table + ".jsonl", rows.out);
    auto [status, report] = run_shell("node '" + source_dir() + "/tests/interop/read_iceberg.mjs' '" + f.dir() + "/copy/" + table +
                                      "' '" + f.dir() + "/" + table + ".jsonl' '" + store.url("shop") + "/" + table + "'");
    EXPECT_EQ(status, 0) << table << ":\n" << report;
  }
}

INSTANTIATE_TEST_SUITE_P(Emulators, ShopOnStore, ::testing::Values(Emulator::S3rver, Emulator::Azurite),
                         [](const auto& info) { return std::string(emulator_name(info.param)); });

}  // namespace
}  // namespace lakestream::testing
