// A checkpoint only fits the stream definition it was made with, and the table it wrote: a changed
// definition, a lost or damaged checkpoint, or a table missing a data file is refused or reported,
// never silently started over.
#include <filesystem>

#include "safety/safety_pipeline.h"
#include "shop/shop_scenario.h"

namespace lakestream::testing {
namespace {

struct DefinitionChange {
  std::string what;
  std::string from, to;   // in the shop pipeline file
  std::string message;    // what the refusal must say
};

TEST(CheckpointSafety, IncompatibleDefinitionChangesAreRefusedWithWhatChanged) {
  const std::vector<DefinitionChange> changes{
      {"key", "key = [\"order_id\"]", "key = [\"customer_id\"]",
       "stream latest_orders has changed since its checkpoint"},
      {"window", "window = \"1 hour\"", "window = \"30 minutes\"", "window_us: was 3600000000, now 1800000000"},
      {"watermark delay", "watermark = \"1 hour\"", "watermark = \"2 hours\"",
       "watermark_delay_us: was 3600000000, now 7200000000"},
      {"dedup keys", "dedup = [\"order_id\", \"status\"]", "dedup = [\"order_id\"]",
       "dedup: was [\"order_id\",\"status\"], now [\"order_id\"]"},
      {"filter", "filter = \"status = 'placed'\"", "filter = \"status <> 'cancelled'\"",
       "filter: was \"status = 'placed'\", now \"status <> 'cancelled'\""},
      {"a column's type", "amount = \"decimal(18,2)\"", "amount = \"double\"",
       "schema.amount: was \"decimal(18,2)\", now \"double\""},
  };
  for (const auto& change : changes) {
    SCOPED_TRACE(change.what);
    PipelineFixture f(shop_pipeline(), {{"orders", 3}});
    f.produce("orders", shop_batches().at("1"), "order_id");
    ASSERT_EQ(f.lakestream("run").exit_code, 0);

    f.write_pipeline(replaced(shop_pipeline(), change.from, change.to));
    f.produce("orders", shop_batches().at("2"), "order_id");
    expect_refused(f.lakestream("run"),
                   {change.message, "start over with the new definition: delete the checkpoint folder", "(a backfill)"});
    if (change.what != "a column's type") {  // ingest runs first and is unchanged
      EXPECT_EQ(f.query("select count(*) from bronze_orders"), "count_star()\n6\n");
    }
    // Undone, the stream goes on where it was.
    f.write_pipeline(shop_pipeline());
    ASSERT_EQ(f.lakestream("run").exit_code, 0);
    EXPECT_EQ(f.lakestream("check").exit_code, 0);
  }
}

TEST(CheckpointSafety, AMissingCheckpointOfATableWithItsBatchesIsRefused) {
  PipelineFixture f(safety_pipeline(), {{"orders", 2}});
  f.produce("orders", safety_events(0, 50), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  std::filesystem::remove_all(f.dir() + "/checkpoints/read_orders");
  f.produce("orders", safety_events(50, 5), "order_id");
  expect_refused(f.lakestream("run"), {"the checkpoint of stream read_orders is missing",
                                       "table bronze_orders holds its batches (version 0 and later)",
                                       "Restore the checkpoint folder"});
  EXPECT_EQ(f.query("select count(*) from bronze_orders"), "count_star()\n50\n") << "nothing read twice";
  EXPECT_FALSE(std::filesystem::exists(f.dir() + "/checkpoints/read_orders/metadata.json"))
      << "no new checkpoint was made";
}

TEST(CheckpointSafety, ADamagedCheckpointIsDetected) {
  struct Damage {
    std::string what, file, content, message;
  };
  const std::vector<Damage> damages{
      {"metadata not JSON", "read_orders/metadata.json", "{\"id\": ", "metadata.json is not valid"},
      {"plan not JSON", "read_orders/batches/0.json", "garbage", "0.json is not valid JSON"},
      {"metadata gone", "read_orders/metadata.json", "", "metadata.json is missing but batches are planned"},
      {"window state gone", "hourly_sales/state.duckdb", "", "state.duckdb is missing but batches were planned"},
  };
  for (const auto& damage : damages) {
    SCOPED_TRACE(damage.what);
    PipelineFixture f(shop_pipeline(), {{"orders", 3}});
    f.produce("orders", shop_batches().at("1"), "order_id");
    ASSERT_EQ(f.lakestream("run").exit_code, 0);
    std::string path = f.dir() + "/checkpoints/" + damage.file;
    ASSERT_TRUE(std::filesystem::exists(path));
    if (damage.content.empty()) std::filesystem::remove(path);
    else write_text(path, damage.content);
    f.produce("orders", shop_batches().at("2"), "order_id");
    expect_refused(f.lakestream("run"), {"is damaged", damage.message});
  }
}

TEST(CheckpointSafety, CheckReportsADataFileTheLogNamesButIsMissing) {
  PipelineFixture f(safety_pipeline(), {{"orders", 2}});
  f.produce("orders", safety_events(0, 20), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  std::string table = f.dir() + "/lake/bronze_orders";
  std::string removed;
  for (const auto& entry : std::filesystem::directory_iterator(table))
    if (entry.path().extension() == ".parquet") removed = entry.path().filename().string();
  ASSERT_FALSE(removed.empty());
  std::filesystem::remove(table + "/" + removed);
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 1);
  EXPECT_EQ(check.out, "PROBLEM bronze_orders version 0 names data file " + removed +
                           ", which is missing: the table cannot be read. Restore the file from a backup (lakestream "
                           "vacuum never deletes a file the current version names)\n");
}

}  // namespace
}  // namespace lakestream::testing
