// Acceptance: many events with double amounts in 1-minute windows, streamed in several runs (each
// window's sum added in another order than the batch recount's): check finds no PROBLEM,
// and a window changed by hand by one cent still is one (the tolerance hides no real error).
#include <algorithm>
#include <random>

#include "check/clicks_pipeline.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"

namespace lakestream::testing {
namespace {

TEST(ManyDoubles, NoProblemUntilAWindowIsChangedByHand) {
  const int events = std::getenv("LAKESTREAM_LONG_TESTS") ? 300000 : 30000;
  const int sends = 3, minutes = 300;
  PipelineFixture f(
      clicks_pipeline("order_id = \"bigint\"\namount = \"double\"\nts = \"timestamp\"\n",
                      "[streams.per_minute]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"per_minute\"\n"
                      "event_time = \"ts\"\nwatermark = \"10 minutes\"\nwindow = \"1 minute\"\nwindow_column = \"minute\"\n\n"
                      "[streams.per_minute.aggregates]\norders = \"count(*)\"\nrevenue = \"sum(amount)\"\n"
                      "mean = \"avg(amount)\"\n"),
      // Partitions in proportion to the events, as a real topic would have.
      {{"clicks", std::max(4, events / 7500)}});
  std::mt19937_64 random(11);
  for (int send = 0; send < sends; send++) {
    std::string lines;
    for (int i = send * events / sends; i < (send + 1) * events / sends; i++) {
      int second = static_cast<int>(static_cast<int64_t>(i) * minutes * 60 / events);
      char line[160];
      std::snprintf(line, sizeof line, "{\"order_id\":%d,\"amount\":%.2f,\"ts\":\"2026-10-01T%02d:%02d:%02dZ\"}\n", i,
                    static_cast<double>(random() % 100000) / 100, 9 + second / 3600, second / 60 % 60, second % 60);
      lines += line;
    }
    send_and_run(f, lines);
  }
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_TRUE(lines_with(check.out, "PROBLEM").empty()) << check.out;
  EXPECT_TRUE(lines_with(check.out, "late").empty()) << check.out;
  EXPECT_EQ(lines_with(check.out, "ok").size(), static_cast<size_t>(1 + minutes - 11)) << "all but the open minutes";

  // One window's revenue one cent more, written as a new version of the table.
  std::string table = f.dir() + "/lake/per_minute";
  delta::Snapshot gold = delta::load_snapshot(table);
  sql::Database db;
  sql::Connection con(db);
  delta::Commit commit(gold);
  for (const auto& file : gold.files) commit.remove(file);
  commit.add(delta::write_data_file(con, table, delta::Metadata{}, "SELECT * REPLACE (CASE WHEN strftime(minute, '%H:%M') = '10:17' THEN revenue + 0.01 "
                                    "ELSE revenue END AS revenue) FROM (" + delta::scan_sql(gold) + ")",
                                    gold.metadata.schema));
  commit.publish();
  check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 1) << check.out;
  auto problems = lines_with(check.out, "PROBLEM");
  ASSERT_EQ(problems.size(), 1u) << check.out;
  EXPECT_EQ(problems[0].rfind("PROBLEM 10:17 counted ", 0), 0u) << problems[0];
  EXPECT_NE(problems[0].find(": the written values are wrong"), std::string::npos) << problems[0];
}

}  // namespace
}  // namespace lakestream::testing
