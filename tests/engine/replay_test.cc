// `lakestream replay STREAM --into TABLE --watermark DELAY`: the window stream run again from
// bronze into a new table with a longer watermark keeps the late order the original dropped;
// check compares both tables with the recount.
#include "ops_pipeline.h"

namespace lakestream::testing {
namespace {

TEST(Replay, ALongerWatermarkKeepsTheLateOrderAndCheckComparesTheNewTable) {
  PipelineFixture f(ops_pipeline(), {{"orders", 1}});
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  f.produce("orders", order_at(4, "0910") + order_at(5, "1240") + order_at(6, "1350"), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders from hourly_sales order by hour"),
            "h,orders\n09:00,2\n11:00,1\n") << "09:10 arrived after 09:00 was written";

  CommandResult r = f.lakestream("replay", {"hourly_sales", "--into", "hourly_sales_2h", "--watermark", "2 hours"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hourly_sales_2h: batch 0: 6 in"), std::string::npos) << r.out;
  // From bronze in one batch, the watermark is 13:50 - 2h = 11:50: 09:00 and 10:00 close (with the
  // 09:10 order: replayed at once, nothing is late) and 11:00 stays open.
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders from hourly_sales_2h order by hour"),
            "h,orders\n09:00,3\n");
  EXPECT_TRUE(std::filesystem::exists(f.dir() + "/checkpoints/hourly_sales_2h/replay.json"));

  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("late    hourly_sales 09:00 counted 2 orders"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("ok      hourly_sales_2h 09:00 3 orders"), std::string::npos) << "the replay's table is checked: " << check.out;
  nlohmann::json replay = stream_status(f, "hourly_sales_2h");
  EXPECT_EQ(replay["lastProgress"]["eventTime"]["watermark"], "2026-10-01T11:50:00.000Z");

  // Another replay into the same table with other settings is refused; the same one continues.
  r = f.lakestream("replay", {"hourly_sales", "--into", "hourly_sales_2h", "--watermark", "3 hours"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("holds another replay"), std::string::npos) << r.err;
  r = f.lakestream("replay", {"hourly_sales", "--into", "hourly_sales_2h", "--watermark", "2 hours"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hourly_sales_2h: nothing new"), std::string::npos) << r.out;
  r = f.lakestream("replay", {"read_orders", "--into", "bronze_again"});
  EXPECT_NE(r.err.find("is an ingest stream"), std::string::npos) << r.err;
  r = f.lakestream("replay", {"hourly_sales", "--into", "bronze_orders"});
  EXPECT_NE(r.err.find("belongs to the pipeline already"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lakestream::testing
