// Small files and capped batches in the shop scenario: compacting bronze between runs
// (`lakestream optimize`, a dataChange=false commit) and reading it one version per batch
// (max_files_per_trigger) change no answer: check prints the scenario's expected lines.
#include "shop/shop_scenario.h"
#include "table/delta_table.h"

namespace lakestream::testing {
namespace {

std::string bronze_path(const PipelineFixture& f) { return f.dir() + "/lake/bronze_orders"; }

int count_lines_with(const std::string& text, const std::string& part) {
  int n = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) n++;
  return n;
}

TEST(SmallFiles, OptimizingBronzeBetweenRunsChangesNoAnswer) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  int compactions = 0;
  play_shop(f, [&] {
    run_ok(f, {"read_orders"});
    CommandResult optimize = f.lakestream("optimize", {"bronze_orders", "--target-size", "128MB"});
    ASSERT_EQ(optimize.exit_code, 0) << optimize.err;
    if (optimize.out.find("dataChange=false") != std::string::npos) compactions++;
    // Bronze is one file after each compaction, with every event still in it.
    EXPECT_EQ(delta::load_snapshot(bronze_path(f)).files.size(), 1u) << optimize.out;
    run_ok(f, {"latest_orders", "hourly_sales"});
  });
  EXPECT_EQ(compactions, 5);  // every send after the first leaves two files to merge
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 0);
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders, revenue from hourly_sales order by hour"),
            "h,orders,revenue\n09:00,3,68.50\n10:00,2,55.00\n11:00,1,18.25\n");
  EXPECT_EQ(f.query("select count(*) as events, count(distinct (partition, \"offset\")) as offsets from bronze_orders"),
            "events,offsets\n11,11\n");
  // The compaction commit says so, and removes without dataChange.
  auto commits = delta::read_commits(bronze_path(f), 0, delta::latest_version(bronze_path(f)));
  const auto& last = commits.back();
  EXPECT_EQ(last.commit_info.value("operation", ""), "OPTIMIZE");
  ASSERT_EQ(last.adds.size(), 1u);
  EXPECT_FALSE(last.adds[0].data_change);
  ASSERT_EQ(last.removes.size(), 2u);
  for (const auto& removed : last.removes) EXPECT_FALSE(removed.data_change);
}

TEST(SmallFiles, OptimizeWithNothingToMergeOrAnUnknownTableSaysSo) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  f.produce("orders", shop_batches().at("1"), "order_id");
  run_ok(f);
  CommandResult one_file = f.lakestream("optimize", {"bronze_orders"});
  EXPECT_EQ(one_file.exit_code, 0) << one_file.err;
  EXPECT_EQ(one_file.out, "optimize: bronze_orders has fewer than two small files in any partition, so nothing was merged\n");
  CommandResult typo = f.lakestream("optimize", {"bronze_order"});
  EXPECT_NE(typo.exit_code, 0);
  EXPECT_NE(typo.err.find("did you mean 'bronze_orders'?"), std::string::npos) << typo.err;
  CommandResult bad_size = f.lakestream("optimize", {"bronze_orders", "--target-size", "lots"});
  EXPECT_NE(bad_size.exit_code, 0);
  EXPECT_NE(bad_size.err.find("is not a size"), std::string::npos) << bad_size.err;
}

TEST(SmallFiles, ACrashBeforeTheCompactionCommitLeavesTheTableAsItWas) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  auto batches = shop_batches();
  for (const std::string batch : {"1", "2"}) {
    f.produce("orders", batches.at(batch), "order_id");
    run_ok(f, {"read_orders"});
  }
  int64_t before = delta::latest_version(bronze_path(f));
  CommandResult crashed = f.lakestream("optimize", {"bronze_orders"}, {"LAKESTREAM_FAULT=after_data_files"});
  EXPECT_NE(crashed.exit_code, 0);
  EXPECT_EQ(delta::latest_version(bronze_path(f)), before);
  EXPECT_EQ(delta::load_snapshot(bronze_path(f)).files.size(), 2u);
  CommandResult again = f.lakestream("optimize", {"bronze_orders"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(delta::latest_version(bronze_path(f)), before + 1);
  EXPECT_EQ(delta::load_snapshot(bronze_path(f)).files.size(), 1u);
  EXPECT_EQ(f.query("select count(*) as events from bronze_orders"), "events\n6\n");
}

TEST(SmallFiles, EachBatchWritesAtMostOneFilePerTable) {
  PipelineFixture f(shop_pipeline(), {{"orders", 3}});
  play_shop(f, [&] { run_ok(f); });
  int commits_with_data = 0;
  for (const std::string table : {"bronze_orders", "bronze_orders_quarantine", "orders", "hourly_sales"}) {
    std::string path = f.dir() + "/lake/" + table;
    int64_t latest = delta::latest_version(path);
    if (latest < 0 && table.ends_with("_quarantine")) continue;  // nothing quarantined, no table
    ASSERT_GE(latest, 0) << table;
    for (const auto& commit : delta::read_commits(path, 0, latest)) {
      EXPECT_LE(commit.adds.size(), 1u) << table << " version " << commit.version;
      commits_with_data += commit.adds.empty() ? 0 : 1;
    }
  }
  EXPECT_GE(commits_with_data, 6 + 6 + 2);  // bronze and silver every send, gold when an hour closed
}

// With one bronze version per batch, one run over all six versions makes the batches that six
// runs (one after each send) make: the same watermarks, the same late and duplicate rows.
TEST(SmallFiles, BatchesCappedAtOneFileGiveTheScenariosAnswers) {
  std::string toml = shop_pipeline();
  for (const std::string after : {"order_by = \"event_time\"\n", "output = \"append\"\n"}) {
    auto at = toml.find(after);
    ASSERT_NE(at, std::string::npos);
    toml.insert(at + after.size(), "max_files_per_trigger = 1\n");
  }
  PipelineFixture f(toml, {{"orders", 3}});
  play_shop(f, [&] { run_ok(f, {"read_orders"}); });
  CommandResult run = f.lakestream("run", {"latest_orders", "hourly_sales"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(count_lines_with(run.out, "latest_orders: batch"), 6) << run.out;
  EXPECT_GE(count_lines_with(run.out, "hourly_sales: batch"), 6) << run.out;
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 0);
}

}  // namespace
}  // namespace lakestream::testing
