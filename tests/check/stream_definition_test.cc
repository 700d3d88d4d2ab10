// check and recount recount a window stream by its own definition: its group keys, its dedup
// keys and its filter. Each test states events in and check's lines out.
#include "check/clicks_pipeline.h"

namespace lakestream::testing {
namespace {

const char* kSchema = "user_id = \"bigint\"\npage = \"string\"\nts = \"timestamp\"\namount = \"double\"\n";

std::string per_page(const std::string& extra) {
  return "[streams.per_page]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"clicks_per_page\"\n"
         "event_time = \"ts\"\nwatermark = \"0s\"\nwindow = \"1 hour\"\nwindow_column = \"hour\"\n" + extra +
         "\n[streams.per_page.aggregates]\nclicks = \"count(*)\"\n";
}

std::string click(int user, const std::string& page, const std::string& hhmm) {
  return "{\"user_id\":" + std::to_string(user) + ",\"page\":\"" + page + "\",\"ts\":\"2026-10-01T" + hhmm.substr(0, 2) +
         ":" + hhmm.substr(2, 2) + ":00Z\",\"amount\":1.5}\n";
}

TEST(CheckStreamDefinition, GroupKeysNamedLikeAnEventColumn) {
  PipelineFixture f(clicks_pipeline(kSchema, per_page("group_by = [\"page\"]\nfilter = \"page <> 'skip'\"")), {{"clicks", 1}});
  send_and_run(f, click(1, "home", "0901") + click(2, "cart", "0902") + click(3, "home", "0903") + click(4, "skip", "0904"));
  send_and_run(f, click(5, "home", "1030"));
  expect_check(f,
               "ok      bronze_clicks has 5 events, each offset once\n"
               "ok      09:00 cart 1 click\n"
               "ok      09:00 home 2 clicks\n"
               "waiting 10:00 home is not written yet: the watermark has not passed its end\n");
}

// A window of more than a count and a sum names each value by its column, in check's lines and
// recount's; recount names the group of the window it changed, as check does.
TEST(CheckStreamDefinition, EveryValueIsNamedByItsColumnAndRecountNamesTheGroup) {
  std::string stream = per_page("group_by = [\"page\"]") + "total = \"sum(amount)\"\ntop = \"max(amount)\"\n";
  PipelineFixture f(clicks_pipeline(kSchema, stream), {{"clicks", 1}});
  send_and_run(f, click(1, "home", "0901") + click(2, "home", "0902") + click(3, "cart", "0903"));
  send_and_run(f, click(4, "home", "1030"));
  send_and_run(f, click(5, "home", "0905"));  // after the watermark passed 10:00: late
  expect_check(f,
               "ok      bronze_clicks has 5 events, each offset once\n"
               "ok      09:00 cart 1 click, total 1.5, top 1.5\n"
               "late    09:00 home counted 2 clicks, total 3, top 1.5; bronze has 3 clicks, total 4.5, top 1.5: 1 "
               "arrived after the hour was written\n"
               "waiting 10:00 home is not written yet: the watermark has not passed its end\n");
  CommandResult recount = f.lakestream("recount");
  EXPECT_EQ(recount.out,
            "recount: clicks_per_page 2026-10-01 09:00 home: 2 clicks, total 3, top 1.5 -> 3 clicks, total 4.5, top 1.5\n")
      << recount.err;
}

TEST(CheckStreamDefinition, DedupKeysAreTheStreamsNotEveryColumn) {
  PipelineFixture f(clicks_pipeline(kSchema, per_page("dedup = [\"user_id\", \"ts\"]")), {{"clicks", 1}});
  // The same user and time twice, on another page: one click for the stream.
  send_and_run(f, click(1, "home", "0901") + click(1, "cart", "0901") + click(2, "home", "0905"));
  send_and_run(f, click(3, "home", "1030"));
  expect_check(f,
               "ok      bronze_clicks has 4 events, each offset once\n"
               "ok      09:00 2 clicks\n"
               "waiting 10:00 is not written yet: the watermark has not passed its end\n");
  expect_recount_changes_nothing(f);
}

TEST(CheckStreamDefinition, ALateFirstCopyLeavesTheDedupKeyToALaterCopy) {
  PipelineFixture f(clicks_pipeline(kSchema, per_page("dedup = [\"user_id\"]")), {{"clicks", 1}});
  send_and_run(f, click(1, "home", "1001"));
  // User 2 at 09:30 is older than the watermark (10:01); its copy at 10:20 is counted.
  send_and_run(f, click(2, "home", "0930"));
  send_and_run(f, click(2, "cart", "1020") + click(3, "home", "1105"));
  expect_check(f,
               "ok      bronze_clicks has 4 events, each offset once\n"
               "late    09:00 was not written: its 1 click arrived after the watermark passed its end\n"
               "ok      10:00 2 clicks\n"
               "waiting 11:00 is not written yet: the watermark has not passed its end\n");
  // The nightly batch writes the closed window the stream never wrote; an open one it leaves.
  CommandResult recount = f.lakestream("recount");
  EXPECT_EQ(recount.out, "recount: clicks_per_page 2026-10-01 09:00: not written -> 1 click\n") << recount.err;
  expect_check(f,
               "ok      bronze_clicks has 4 events, each offset once\n"
               "ok      09:00 1 click\n"
               "ok      10:00 2 clicks\n"
               "waiting 11:00 is not written yet: the watermark has not passed its end\n");
  expect_recount_changes_nothing(f);
}

TEST(CheckStreamDefinition, ADedupKeyForgottenByTheWatermarkCountsAgain) {
  PipelineFixture f(clicks_pipeline(kSchema, per_page("dedup = [\"user_id\"]")), {{"clicks", 1}});
  // User 1 at 09:01, then again at 09:30 in the same batch (a duplicate), and at 10:05 after the
  // watermark (09:30, delay 0) passed 09:01: the key was forgotten, the click counts.
  send_and_run(f, click(1, "home", "0901") + click(1, "home", "0930"));
  send_and_run(f, click(1, "cart", "1005") + click(2, "home", "1006"));
  send_and_run(f, click(3, "home", "1110"));
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, clicks from clicks_per_page order by 1"), "h,clicks\n09:00,1\n10:00,2\n");
  expect_check(f,
               "ok      bronze_clicks has 5 events, each offset once\n"
               "ok      09:00 1 click\n"
               "ok      10:00 2 clicks\n"
               "waiting 11:00 is not written yet: the watermark has not passed its end\n");
}

TEST(CheckStreamDefinition, ALaterCopyCountedInPlaceOfALateOneIsLate) {
  PipelineFixture f(clicks_pipeline(kSchema,
                                    "[streams.per_page]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"clicks_per_page\"\n"
                                    "event_time = \"ts\"\nwatermark = \"10 minutes\"\nwindow = \"15 minutes\"\n"
                                    "window_column = \"quarter\"\ndedup = [\"user_id\"]\n\n[streams.per_page.aggregates]\n"
                                    "clicks = \"count(*)\"\nlast_click = \"max(ts)\"\n"),
                    {{"clicks", 1}});
  // The watermark is 10:50 after the first run, and user 1 at 10:00 is forgotten. User 1 at
  // 10:45 is then late, and at 10:52 counts in its place: the batch truth takes the 10:45 copy
  // (late copies count there) and drops the 10:52 one (within the delay of it).
  send_and_run(f, click(1, "home", "1000") + click(2, "home", "1100"));
  send_and_run(f, click(1, "home", "1045") + click(1, "home", "1052") + click(3, "home", "1200"));
  expect_check(f,
               "ok      bronze_clicks has 5 events, each offset once\n"
               "ok      10:00 1 click, last_click 2026-10-01 10:00:00+00\n"
               "late    10:45 counted 1 click, last_click 2026-10-01 10:52:00+00; bronze has 1 click, last_click "
               "2026-10-01 10:45:00+00: a later "
               "copy of a dedup key was counted in place of one older than the watermark\n"
               "ok      11:00 1 click, last_click 2026-10-01 11:00:00+00\n"
               "waiting 12:00 is not written yet: the watermark has not passed its end\n");
}

}  // namespace
}  // namespace lakestream::testing
