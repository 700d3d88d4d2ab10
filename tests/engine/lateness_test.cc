// `lakestream lateness STREAM`: on events of known lateness, what each delay would drop and how
// many windows it closes.
#include "check/lateness.h"
#include "ops_pipeline.h"

namespace lakestream::testing {
namespace {

TEST(Lateness, EachDelayDropsTheEventsLaterThanIt) {
  PipelineFixture f(ops_pipeline(), {{"orders", 1}});
  // In arrival order: 09:30 arrives 50 minutes behind 10:20, 09:40 arrives 90 minutes behind
  // 11:10. Without dedup, an event is late when its hour's end (10:00) is at or before the
  // newest event time before it minus the delay.
  // One ingest batch per event, so that each meets the newest event time of the ones before it.
  for (const auto& order : {order_at(1, "0905"), order_at(2, "0950"), order_at(3, "1020"), order_at(4, "0930"),
                            order_at(5, "1110"), order_at(6, "0940"), order_at(7, "1200")}) {
    f.produce("orders", order);
    ASSERT_EQ(f.lakestream("run", {"read_orders"}).exit_code, 0);
  }

  CommandResult r = f.lakestream("lateness", {"hourly_sales"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lateness of hourly_sales: 7 events of bronze_orders in the order the stream reads them (batch by batch); "
                      "the latest arrived 1h30m"),
            std::string::npos) << r.out;
  auto dropped = [&](const std::string& delay) {
    auto at = r.out.find("\n  " + delay + " ");
    if (at == std::string::npos) at = r.out.find("\n* " + delay + " ");
    if (at == std::string::npos) return -1;
    return std::stoi(r.out.substr(at + 14, 10));
  };
  EXPECT_EQ(dropped("0s"), 2) << r.out;
  EXPECT_EQ(dropped("15m"), 2);
  EXPECT_EQ(dropped("30m"), 1) << "10:00 > 10:20 - 30m: the 09:30 event is in time";
  EXPECT_EQ(dropped("1h"), 1);
  EXPECT_EQ(dropped("2h"), 0);
  EXPECT_NE(r.out.find("* 1h "), std::string::npos) << "the stream's own delay is marked";
  EXPECT_NE(r.out.find("(the stream's watermark now)"), std::string::npos);

  // Windows 09, 10, 11, 12 end at 10:00, 11:00, 12:00, 13:00; the newest event is 12:00.
  LatenessProfile p = lateness_profile(load_pipeline(f.pipeline_file()), "hourly_sales");
  for (const auto& row : p.rows) {
    if (row.delay_us == 0) {
      EXPECT_EQ(row.windows_closed, 3);
      EXPECT_EQ(row.windows_open, 1);
    }
    if (row.delay_us == 3600LL * 1000000) {
      EXPECT_EQ(row.windows_closed, 2) << "12:00 passes 10:00 + 1h and 11:00 + 1h only";
    }
  }
}

TEST(Lateness, InOrderEventsSentInBulkAreNeverLate) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  // Two bulk sends of orders in time order, spread over three partitions: the Kafka timestamps tie
  // and partitions interleave, but no event is older than any batch before its own.
  for (int send = 0; send < 2; send++) {
    std::string events;
    for (int i = 0; i < 120; i++) {
      int minute = send * 120 + i;
      char hhmm[5];
      std::snprintf(hhmm, sizeof hhmm, "%02d%02d", 9 + minute / 60, minute % 60);
      events += order_at(send * 1000 + i, hhmm);
    }
    f.produce("orders", events, "order_id");
    ASSERT_EQ(f.lakestream("run", {"read_orders"}).exit_code, 0);
  }
  LatenessProfile p = lateness_profile(load_pipeline(f.pipeline_file()), "hourly_sales");
  EXPECT_EQ(p.events, 240);
  EXPECT_EQ(p.max_lateness_us, 0);
  for (const auto& row : p.rows) EXPECT_EQ(row.dropped, 0) << "delay " << row.delay_us;
}

TEST(Lateness, ExplainsWhatIsMissing) {
  PipelineFixture f(ops_pipeline(), {{"orders", 1}});
  CommandResult r = f.lakestream("lateness", {"hourly_sales"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bronze_orders does not exist yet: run the pipeline first"), std::string::npos) << r.err;
  r = f.lakestream("lateness", {"read_orders"});
  EXPECT_NE(r.err.find("not a window stream"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lakestream::testing
