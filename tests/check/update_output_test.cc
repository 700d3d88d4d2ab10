// A window stream with output = "update" upserts each changed window, a NULL group value
// included: one row per window and group, however many runs changed it.
#include "check/clicks_pipeline.h"

namespace lakestream::testing {
namespace {

TEST(UpdateOutput, ANullGroupValueIsOneRowUpdatedInPlace) {
  PipelineFixture f(clicks_pipeline("region = \"string\"\namount = \"decimal(10,2)\"\nts = \"timestamp\"\n",
                                    "[streams.by_region]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"by_region\"\n"
                                    "event_time = \"ts\"\nwatermark = \"1 hour\"\nwindow = \"1 hour\"\nwindow_column = \"hour\"\n"
                                    "group_by = [\"region\"]\noutput = \"update\"\n\n[streams.by_region.aggregates]\n"
                                    "orders = \"count(*)\"\nrevenue = \"sum(amount)\"\n"),
                    {{"clicks", 1}});
  send_and_run(f, "{\"amount\":10.00,\"ts\":\"2026-10-01T09:01:00Z\"}\n{\"region\":\"eu\",\"amount\":5.00,\"ts\":\"2026-10-01T09:02:00Z\"}\n");
  send_and_run(f, "{\"region\":null,\"amount\":20.00,\"ts\":\"2026-10-01T09:03:00Z\"}\n");
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, region, orders, revenue from by_region order by all"),
            "h,region,orders,revenue\n09:00,eu,1,5.00\n09:00,,2,30.00\n");
  expect_check(f,
               "ok      bronze_clicks has 3 events, each offset once\n"
               "ok      09:00 eu 1 order, 5.00\n"
               "ok      09:00 NULL 2 orders, 30.00\n");
}

}  // namespace
}  // namespace lakestream::testing
