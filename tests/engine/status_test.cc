// `lakestream status`: what an operator sees after runs, with new events waiting in Kafka, and
// after a failure; and the falling-behind alert's rule.
#include <filesystem>

#include "engine/progress_record.h"
#include "engine/rate_alert.h"
#include "ops_pipeline.h"

namespace lakestream::testing {
namespace {

TEST(Status, ShowsLagPerPartitionUntilTheRunCatchesUp) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  // Before any run: every event is lag, and nothing ran yet.
  nlohmann::json bronze = stream_status(f, "read_orders");
  EXPECT_EQ(bronze["health"], "behind");
  EXPECT_EQ(total_lag(bronze), 3);
  EXPECT_EQ(bronze["kafkaLag"].size(), 3u) << "one entry per partition";

  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  bronze = stream_status(f, "read_orders");
  EXPECT_EQ(bronze["health"], "ok");
  EXPECT_EQ(total_lag(bronze), 0);
  EXPECT_EQ(bronze["numInputRows"], 3);
  EXPECT_EQ(bronze["lastProgress"]["batchId"], 0);
  nlohmann::json gold = stream_status(f, "hourly_sales");
  EXPECT_EQ(gold["health"], "ok");
  EXPECT_EQ(gold["versionsBehind"], 0);
  EXPECT_EQ(gold["lastProgress"]["eventTime"]["watermark"], "2026-10-01T10:30:00.000Z");

  f.produce("orders", order_at(4, "0910") + order_at(5, "1140") + order_at(6, "1150") + order_at(7, "1155"), "order_id");
  bronze = stream_status(f, "read_orders");
  EXPECT_EQ(bronze["health"], "behind");
  EXPECT_EQ(total_lag(bronze), 4);
  for (const auto& p : bronze["kafkaLag"])
    EXPECT_EQ(p["lag"].get<int64_t>(), p["latest"].get<int64_t>() - p["committed"].get<int64_t>());

  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  gold = stream_status(f, "hourly_sales");
  EXPECT_EQ(gold["lateDropped"], 1);
  EXPECT_EQ(gold["health"], "ok");
  CommandResult text = f.lakestream("status");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("ok       read_orders (ingest -> bronze_orders)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Kafka lag 0 (partition:lag 0:0, 1:0, 2:0)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("1 late dropped, 0 duplicates dropped"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("watermark 2026-10-01T10:55:00.000Z, state 1 row ("), std::string::npos) << text.out;
}

// What a service keeps, per stream: the table's live files, its log, the window state's file; an
// append-only bronze's live files are every Parquet file in its folder.
TEST(Status, ShowsWhatEachStreamKeepsOnDisk) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950"), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  f.produce("orders", order_at(3, "1130"), "order_id");
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  auto files_under = [](const std::string& dir, const std::string& ending) {
    int64_t n = 0, bytes = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().string().ends_with(ending)) {
        n++;
        bytes += static_cast<int64_t>(e.file_size());
      }
    return std::pair<int64_t, int64_t>{n, bytes};
  };
  nlohmann::json bronze = stream_status(f, "read_orders");
  auto [parquet, parquet_bytes] = files_under(f.dir() + "/lake/bronze_orders", ".parquet");
  auto [logs, log_bytes] = files_under(f.dir() + "/lake/bronze_orders/_delta_log", "");
  EXPECT_EQ(bronze["footprint"]["dataFiles"], parquet) << bronze.dump();
  EXPECT_EQ(bronze["footprint"]["dataBytes"], parquet_bytes);
  EXPECT_EQ(bronze["footprint"]["logFiles"], logs);
  EXPECT_EQ(bronze["footprint"]["logBytes"], log_bytes);
  EXPECT_FALSE(bronze["footprint"].contains("stateBytes"));
  nlohmann::json gold = stream_status(f, "hourly_sales");
  EXPECT_EQ(gold["footprint"]["stateBytes"],
            static_cast<int64_t>(std::filesystem::file_size(f.dir() + "/checkpoints/hourly_sales/state.duckdb")));
  CommandResult text = f.lakestream("status");
  EXPECT_NE(text.out.find("         table " + std::to_string(parquet) + " files ("), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("), log " + std::to_string(logs) + " files ("), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("), state file "), std::string::npos) << text.out;
}

TEST(Status, AFailedRunIsFailingWithItsError) {
  PipelineFixture f(ops_pipeline("cast(status as integer) = 1"), {{"orders", 1}});
  f.produce("orders", order_at(1, "0905"), "order_id");
  CommandResult r = f.lakestream("run");
  EXPECT_EQ(r.exit_code, 1);
  nlohmann::json gold = stream_status(f, "hourly_sales");
  EXPECT_EQ(gold["health"], "failing");
  EXPECT_NE(gold["lastError"].get<std::string>().find("Could not convert string 'placed'"), std::string::npos) << gold.dump();
  EXPECT_EQ(stream_status(f, "read_orders")["health"], "ok") << "the stream before it is done";
  auto log = read_progress_log(f.dir(), "hourly_sales");
  ASSERT_EQ(log.size(), 1u);
  EXPECT_TRUE(log[0].contains("failure")) << "the failure is in the progress log";
  CommandResult text = f.lakestream("status");
  EXPECT_EQ(text.exit_code, 1) << "status exits 1 when a stream is failing";
  EXPECT_NE(text.out.find("failing  hourly_sales"), std::string::npos) << text.out;

  // Fixed, the next run succeeds and the stream is no longer failing.
  f.write_pipeline(ops_pipeline());
  ASSERT_EQ(f.lakestream("run").exit_code, 0);
  EXPECT_EQ(stream_status(f, "hourly_sales")["health"], "ok");
}

// A progress record of a batch that started `minute` minutes in, with these rates.
BatchProgress batch_at(int minute, double input_rate, double processed_rate) {
  int64_t start = *parse_iso_timestamp("2026-10-01T09:00:00.000Z") + minute * 60LL * 1000000;
  return decode_progress({{"name", "s"}, {"timestamp", iso_timestamp(start)}, {"numInputRows", 100},
                          {"inputRowsPerSecond", input_rate}, {"processedRowsPerSecond", processed_rate}});
}

TEST(Status, FallingBehindMeansProcessingBelowInputForTenMinutes) {
  std::vector<BatchProgress> records;
  for (int m = 0; m <= 9; m++) records.push_back(batch_at(m, 100, 80));
  EXPECT_FALSE(falling_behind(records)) << "9 minutes is not yet 10";
  records.push_back(batch_at(10, 100, 80));
  EXPECT_TRUE(falling_behind(records));
  records.push_back(decode_progress(failure_record("s", "r", "broker down")));
  EXPECT_TRUE(falling_behind(records)) << "a failure does not end the streak";
  records.push_back(batch_at(11, 100, 150));
  EXPECT_FALSE(falling_behind(records)) << "a batch that kept up ends it";
  records.push_back(batch_at(12, 100, 80));
  EXPECT_FALSE(falling_behind(records));
}

}  // namespace
}  // namespace lakestream::testing
