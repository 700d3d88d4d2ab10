// `check --memory-limit`: the same verdicts within a small budget (its DuckDB spills), nothing
// left in $TMPDIR after, and a size it cannot read refused with what to write.
#include <filesystem>

#include "check/clicks_pipeline.h"

namespace lakestream::testing {
namespace {

const std::string kPipeline = clicks_pipeline(
    "user = \"string\"\nevent_time = \"timestamp\"\n",
    "[streams.per_minute]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"per_minute\"\nevent_time = "
    "\"event_time\"\nwatermark = \"1 minute\"\ndedup = [\"user\", \"event_time\"]\nwindow = \"1 minute\"\n"
    "group_by = [\"user\"]\n[streams.per_minute.aggregates]\nclicks = \"count(*)\"\n");

TEST(CheckMemory, ASmallBudgetGivesTheSameVerdictsAndLeavesNothingBehind) {
  PipelineFixture f(kPipeline, {{"clicks", 2}});
  std::string events;
  for (int i = 0; i < 3000; i++)
    events += "{\"user\":\"u" + std::to_string(i % 37) + "\",\"event_time\":\"2026-10-01T09:" +
              std::to_string(10 + i / 100 % 40) + ":0" + std::to_string(i % 10) + "Z\"}\n";
  send_and_run(f, events);
  CommandResult plain = f.lakestream("check");
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  TempDir spill;
  CommandResult budgeted = f.lakestream("check", {"--memory-limit", "32MiB"}, {"TMPDIR=" + spill.path()});
  EXPECT_EQ(budgeted.exit_code, 0) << budgeted.err;
  EXPECT_EQ(budgeted.out, plain.out);
  EXPECT_TRUE(std::filesystem::is_empty(spill.path()));
}

TEST(CheckMemory, ASizeItCannotReadIsRefused) {
  PipelineFixture f(kPipeline, {{"clicks", 1}});
  CommandResult r = f.lakestream("check", {"--memory-limit", "lots"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--memory-limit lots: give a size, as in 4GiB or 512MiB"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lakestream::testing
