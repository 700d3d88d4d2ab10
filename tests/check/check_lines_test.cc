// What check says about the pipeline as a whole: each window line names its table when there are
// several, a table it cannot check gets an error line while the others are checked on (exit 2),
// and a window table with no window closed yet is waiting.
#include <filesystem>

#include "check/clicks_pipeline.h"

namespace lakestream::testing {
namespace {

const char* kSchema = "page = \"string\"\nts = \"timestamp\"\n";

std::string counts(const std::string& name, const std::string& window) {
  return "[streams." + name + "]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"" + name + "\"\n"
         "event_time = \"ts\"\nwatermark = \"0s\"\nwindow = \"" + window + "\"\n\n[streams." + name +
         ".aggregates]\nclicks = \"count(*)\"\n\n";
}

std::string click_at(const std::string& when) { return "{\"page\":\"home\",\"ts\":\"2026-10-" + when + ":00Z\"}\n"; }

TEST(CheckLines, SeveralWindowTablesAreNamedAndAnUnreadableOneIsAnError) {
  PipelineFixture f(clicks_pipeline(kSchema, counts("hourly", "1 hour") + counts("daily", "1 day")), {{"clicks", 1}});
  send_and_run(f, click_at("01T09:01") + click_at("01T09:02"));
  send_and_run(f, click_at("02T10:30"));
  expect_check(f,
               "ok      bronze_clicks has 3 events, each offset once\n"
               "ok      hourly 2026-10-01 09:00 2 clicks\n"
               "waiting hourly 2026-10-02 10:00 is not written yet: the watermark has not passed its end\n"
               "ok      daily 2026-10-01 2 clicks\n"
               "waiting daily 2026-10-02 is not written yet: the watermark has not passed its end\n");

  write_text(f.dir() + "/lake/hourly/_delta_log/00000000000000000000.json", "not a commit\n");
  CommandResult check = f.lakestream("check");
  auto errors = lines_with(check.out, "error");
  ASSERT_EQ(errors.size(), 1u) << check.out << check.err;
  EXPECT_EQ(errors[0].rfind("error   hourly could not be checked: hourly cannot be read: ", 0), 0u) << errors[0];
  EXPECT_EQ(lines_with(check.out, "ok").size(), 2u) << "bronze and daily are checked on: " << check.out;
  EXPECT_EQ(check.exit_code, 2) << check.out;
}

TEST(CheckLines, TablesMadeFromATableMissingADataFileAreErrors) {
  PipelineFixture f(clicks_pipeline(kSchema, counts("hourly", "1 hour")), {{"clicks", 1}});
  send_and_run(f, click_at("01T09:01") + click_at("01T10:02"));
  std::string removed;
  for (const auto& entry : std::filesystem::directory_iterator(f.dir() + "/lake/bronze_clicks"))
    if (entry.path().extension() == ".parquet") removed = entry.path().filename().string();
  std::filesystem::remove(f.dir() + "/lake/bronze_clicks/" + removed);
  expect_check(f,
               "PROBLEM bronze_clicks version 0 names data file " + removed +
                   ", which is missing: the table cannot be read. Restore the file from a backup (lakestream vacuum "
                   "never deletes a file the current version names)\n"
                   "error   hourly could not be checked: bronze_clicks cannot be read: a data file its log names is "
                   "missing (see its PROBLEM line)\n",
               1);
}

TEST(CheckLines, AWindowTableWithNoWindowClosedIsWaiting) {
  PipelineFixture f(clicks_pipeline(kSchema, counts("hourly", "1 hour")), {{"clicks", 1}});
  expect_check(f,
               "waiting bronze_clicks is not written yet: run `lakestream run` first\n"
               "waiting hourly is not written yet: run `lakestream run` first\n");
  send_and_run(f, click_at("01T09:01"));
  expect_check(f,
               "ok      bronze_clicks has 1 event, each offset once\n"
               "waiting hourly is not written yet: no window has closed yet\n");
}

}  // namespace
}  // namespace lakestream::testing
