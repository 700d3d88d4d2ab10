// A window stream whose source is compacted between its batches: the compaction is a version of
// bronze with no new rows. The window batch that reads it alone meets a newer watermark but judges
// no source batch against it, so check finds each event judged by the watermark it really met.
// (A second watermark recorded for the same source batch let check judge on-time events by the
// newer one: it called them late, and the hour that counted them a PROBLEM.)
#include <set>

#include "check/clicks_pipeline.h"
#include "check/window_recount.h"
#include "checkpoint/window_state_store.h"
#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream::testing {
namespace {

TEST(CompactedSource, AWindowBatchReadingOnlyACompactionJudgesNoEventByItsWatermark) {
  PipelineFixture f(clicks_pipeline("id = \"bigint\"\nts = \"timestamp\"\n",
                                    "[streams.hourly]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"hourly\"\n"
                                    "event_time = \"ts\"\nwatermark = \"1 hour\"\ndedup = [\"id\"]\nwindow = \"1 hour\"\n"
                                    "window_column = \"hour\"\noutput = \"append\"\n\n[streams.hourly.aggregates]\n"
                                    "clicks = \"count(*)\"\n"),
                    {{"clicks", 1}});
  // The watermark becomes 09:00; then 09:30 is on time, and 12:00 moves the watermark to 11:00.
  send_and_run(f, "{\"id\":1,\"ts\":\"2026-10-01T10:00:00Z\"}\n");
  send_and_run(f, "{\"id\":2,\"ts\":\"2026-10-01T09:30:00Z\"}\n{\"id\":3,\"ts\":\"2026-10-01T12:00:00Z\"}\n");
  CommandResult optimize = f.lakestream("optimize", {"bronze_clicks"});
  ASSERT_EQ(optimize.exit_code, 0) << optimize.err;
  ASSERT_NE(optimize.out.find("dataChange=false"), std::string::npos) << optimize.out;
  // This batch reads only the compaction, meets 11:00 and writes the hours 09:00 and 10:00.
  CommandResult run = f.lakestream("run", {"hourly"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, clicks from hourly order by hour"), "h,clicks\n09:00,1\n10:00,1\n");
  // The stream records the watermark each source batch met once: batch 0 met none, batch 1 09:00.
  Pipeline pipeline = load_pipeline(f.pipeline_file());
  auto progress = read_window_progress(pipeline, *pipeline.find_stream("hourly"));
  ASSERT_TRUE(progress);
  std::vector<std::pair<int64_t, int64_t>> met{{0, 0}, {1, 1790845200000000}};  // 2026-10-01 09:00 UTC
  EXPECT_EQ(progress->watermark_history, met);
  expect_check(f,
               "ok      bronze_clicks has 3 events, each offset once\n"
               "ok      09:00 1 click\n"
               "ok      10:00 1 click\n"
               "waiting 12:00 is not written yet: the watermark has not passed its end\n");
}

// A state written before that fix may hold two watermarks for a source batch, in either order:
// the first (the least) is the one its events met, whichever order the state lists them in.
TEST(CompactedSource, CheckJudgesASourceBatchByTheFirstWatermarkRecordedForIt) {
  Stream stream;
  stream.event_time = "ts";
  stream.window_us = 3600LL * 1000 * 1000;
  stream.dedup = {"id"};
  std::vector<delta::Column> columns{{"id", "long"}, {"ts", "timestamp"}, {"_batch_id", "long"}};
  const int64_t nine = 1790845200000000, eleven = 1790852400000000;  // 2026-10-01 09:00 and 11:00 UTC
  for (bool later_first : {false, true}) {
    sql::Database db;
    sql::Connection con(db);
    con.exec("CREATE TABLE bronze AS SELECT * FROM (VALUES (1, TIMESTAMPTZ '2026-10-01 10:00:00+00', 0), "
             "(2, TIMESTAMPTZ '2026-10-01 09:30:00+00', 1), (3, TIMESTAMPTZ '2026-10-01 12:00:00+00', 1)) t(id, ts, _batch_id)");
    MetWatermarks met;
    met.by_source_batch = later_first ? std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, eleven}, {1, nine}}
                                      : std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, nine}, {1, eleven}};
    met.next = eleven;
    create_window_copies(con, stream, columns, "bronze", met, "copies");
    EXPECT_EQ(con.scalar("SELECT string_agg(id || ' ' || _met || ' ' || _late, ', ' ORDER BY id) FROM copies"),
              "1 0 false, 2 " + std::to_string(nine) + " false, 3 " + std::to_string(nine) + " false")
        << (later_first ? "11:00 listed first" : "09:00 listed first");
  }
}

}  // namespace
}  // namespace lakestream::testing
