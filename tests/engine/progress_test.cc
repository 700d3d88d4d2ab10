// Progress of every micro-batch: the Spark StreamingQueryProgress record in the stream's
// progress log, as a run by the lakestream binary writes it; the log's rotation; the backlog
// progress lines of a run that takes several batches.
#include <numeric>

#include "checkpoint/progress_log.h"
#include "engine/backlog_progress.h"
#include "engine/batch_progress.h"
#include "engine/progress_record.h"
#include "ops_pipeline.h"

namespace lakestream::testing {
namespace {

int64_t sum_offsets(const nlohmann::json& offsets) {
  int64_t sum = 0;
  for (const auto& [p, o] : offsets.items()) sum += o.get<int64_t>();
  return sum;
}

TEST(Progress, EveryBatchHasASparkProgressRecord) {
  PipelineFixture f(ops_pipeline(), {{"orders", 3}});
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130"), "order_id");
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("%"), std::string::npos) << "no backlog, no progress lines: " << r.out;
  // One late order: 09:10 after the watermark reached 10:30 (its hour ended at 10:00).
  f.produce("orders", order_at(4, "0910") + order_at(5, "1140"), "order_id");
  r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hourly_sales: batch 2: 2 in, 0 out to hourly_sales, 1 late dropped"), std::string::npos) << r.out;

  auto bronze = read_progress_log(f.dir(), "read_orders");
  ASSERT_EQ(bronze.size(), 2u);
  const auto& first = bronze[0];
  for (const char* field : {"id", "runId", "name", "timestamp", "batchId", "numInputRows", "inputRowsPerSecond",
                            "processedRowsPerSecond", "durationMs", "stateOperators", "sources", "sink"})
    EXPECT_TRUE(first.contains(field)) << field << " missing from " << first.dump();
  EXPECT_EQ(first["name"], "read_orders");
  EXPECT_EQ(first["batchId"], 0);
  EXPECT_EQ(first["numInputRows"], 3);
  EXPECT_EQ(first["sink"]["numOutputRows"], 3);
  EXPECT_TRUE(first["durationMs"].contains("triggerExecution"));
  EXPECT_TRUE(first["durationMs"].contains("getBatch"));
  // addBatch's parts, on the thread that committed: its CPU cannot pass its wall time, and a lake
  // on the local disk sends no store requests.
  for (const auto& batch : bronze) {
    const auto& ms = batch["durationMs"];
    ASSERT_TRUE(ms.contains("addBatchCpu") && ms.contains("addBatchStoreWait")) << ms.dump();
    EXPECT_LE(ms["addBatchCpu"].get<int64_t>(), ms["addBatch"].get<int64_t>() + 1) << ms.dump();
    EXPECT_EQ(ms["addBatchStoreWait"], 0) << ms.dump();
  }
  EXPECT_TRUE(parse_iso_timestamp(first["timestamp"]).has_value()) << first["timestamp"];
  const auto& source = first["sources"][0];
  EXPECT_EQ(source["description"], "KafkaV2[Subscribe[orders]]");
  EXPECT_EQ(sum_offsets(source["startOffset"]), 0);
  EXPECT_EQ(sum_offsets(source["endOffset"]), 3);
  EXPECT_EQ(source["latestOffset"], source["endOffset"]);
  EXPECT_EQ(source["maxOffsetsBehindLatest"], 0);
  // The query id is the checkpoint's id; each run has its own run id.
  auto meta = nlohmann::json::parse(read_text(f.dir() + "/checkpoints/read_orders/metadata.json"));
  EXPECT_EQ(first["id"], meta["id"]);
  EXPECT_EQ(bronze[1]["id"], meta["id"]);
  EXPECT_NE(bronze[1]["runId"], first["runId"]);
  EXPECT_EQ(sum_offsets(bronze[1]["sources"][0]["startOffset"]), 3);
  EXPECT_EQ(sum_offsets(bronze[1]["sources"][0]["endOffset"]), 5);

  auto gold = read_progress_log(f.dir(), "hourly_sales");
  ASSERT_GE(gold.size(), 2u);
  const auto& g0 = gold[0];
  EXPECT_EQ(g0["runId"], first["runId"]) << "streams of one run share its run id";
  EXPECT_EQ(g0["eventTime"]["min"], "2026-10-01T09:05:00.000Z");
  EXPECT_EQ(g0["eventTime"]["max"], "2026-10-01T11:30:00.000Z");
  EXPECT_EQ(g0["eventTime"]["watermark"], "2026-10-01T10:30:00.000Z");
  ASSERT_EQ(g0["stateOperators"].size(), 1u);
  EXPECT_EQ(g0["stateOperators"][0]["numRowsTotal"], 2) << "the 09:00 and 11:00 windows are open";
  EXPECT_GT(g0["stateOperators"][0]["memoryUsedBytes"], 0);
  EXPECT_EQ(g0["sources"][0]["description"], "DeltaSource[bronze_orders]");
  // The trailing batch without data (the watermark closed 09:00) read no version.
  const auto& no_data = gold[1];
  EXPECT_EQ(no_data["numInputRows"], 0);
  EXPECT_EQ(no_data["sink"]["numOutputRows"], 1);
  EXPECT_EQ(no_data["sources"][0]["startOffset"], no_data["sources"][0]["endOffset"]);
  // The second run's data batch: the late order is counted where Spark counts it.
  nlohmann::json late_batch;
  for (const auto& g : gold)
    if (g["runId"] != g0["runId"] && g["numInputRows"] == 2) late_batch = g;
  ASSERT_FALSE(late_batch.is_null());
  EXPECT_EQ(late_batch["stateOperators"][0]["numRowsDroppedByWatermark"], 1);
  EXPECT_EQ(late_batch["eventTime"]["watermark"], "2026-10-01T10:40:00.000Z");
}

TEST(Progress, TheLogRotatesBySizeAndKeepsTheNewestRecords) {
  TempDir dir;
  ProgressLog log(dir.path() + "/checkpoints/s", 400);
  for (int i = 0; i < 30; i++) log.append({{"name", "s"}, {"batchId", i}, {"padding", std::string(40, 'x')}});
  EXPECT_LE(file_size(log.path()), 400);
  EXPECT_LE(file_size(log.rotated_path()), 400);
  EXPECT_GT(file_size(log.rotated_path()), 0) << "rotated at least once";
  auto records = log.read();
  ASSERT_GE(records.size(), 4u);
  // The newest, oldest first, with no gap between the two files.
  for (size_t i = 0; i < records.size(); i++)
    EXPECT_EQ(records[i]["batchId"], 30 - static_cast<int>(records.size()) + static_cast<int>(i));
  EXPECT_EQ(log.last()->at("batchId"), 29);
  EXPECT_EQ(log.read(2).size(), 2u);
}

TEST(Progress, ABacklogShowsPlainProgressLinesWithRateAndEta) {
  PipelineFixture f(ops_pipeline("true", 1000), {{"orders", 1}});
  std::string events;
  for (int i = 0; i < 3000; i++) events += order_at(i, "0900");
  f.produce("orders", events, "order_id");
  CommandResult r = f.lakestream("run", {"read_orders"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Not a terminal: no bar, no carriage returns, one line per batch.
  EXPECT_EQ(r.out.find('\r'), std::string::npos);
  EXPECT_NE(r.out.find("read_orders:  33%  1000/3000 offsets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read_orders:  66%  2000/3000 offsets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("read_orders: 100%  3000/3000 offsets"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rows/s  ETA 0:00:"), std::string::npos) << r.out;
}

TEST(Progress, OnATerminalTheBacklogIsABar) {
  EXPECT_EQ(BacklogProgress::format("read_orders", 450, 1000, "offsets", 1200, 5, true),
            "read_orders: [#########-----------]  45%  450/1000 offsets  1200 rows/s  ETA 0:00:05");
  EXPECT_EQ(BacklogProgress::format("read_orders", 450, 1000, "offsets", 0, -1, false),
            "read_orders:  45%  450/1000 offsets  0 rows/s  ETA ?");
}

}  // namespace
}  // namespace lakestream::testing

namespace lakestream::testing {
namespace {

// What an observer sees of a batch is the same whether it listens to the run or reads the log.
void expect_same(const BatchProgress& live, const BatchProgress& logged) {
  EXPECT_EQ(live.stream, logged.stream);
  EXPECT_EQ(live.timestamp, logged.timestamp);
  EXPECT_EQ(live.started_at_us, logged.started_at_us);
  EXPECT_EQ(live.failure, logged.failure);
  EXPECT_EQ(live.batch_id, logged.batch_id);
  EXPECT_EQ(live.input_rows, logged.input_rows);
  EXPECT_EQ(live.output_rows, logged.output_rows);
  EXPECT_DOUBLE_EQ(live.input_rows_per_second, logged.input_rows_per_second);
  EXPECT_DOUBLE_EQ(live.processed_rows_per_second, logged.processed_rows_per_second);
  EXPECT_EQ(live.quarantined, logged.quarantined);
  EXPECT_EQ(live.late_dropped, logged.late_dropped);
  EXPECT_EQ(live.duplicates_dropped, logged.duplicates_dropped);
  EXPECT_EQ(live.watermark_us, logged.watermark_us);
  EXPECT_EQ(live.max_event_time_us, logged.max_event_time_us);
  ASSERT_EQ(live.state.has_value(), logged.state.has_value());
  if (live.state) {
    EXPECT_EQ(live.state->rows_total, logged.state->rows_total);
    EXPECT_EQ(live.state->memory_bytes, logged.state->memory_bytes);
  }
  EXPECT_EQ(live.duration_ms, logged.duration_ms);
  EXPECT_EQ(live.lag, logged.lag);
  EXPECT_EQ(live.end_version, logged.end_version);
}

TEST(Progress, ObserversSeeTheSameBatchLiveAndFromTheLog) {
  int64_t t0 = *parse_iso_timestamp("2026-10-01T09:00:00.000Z");
  StreamReport ingest{"read_orders", "id-1", "KafkaV2[Subscribe[orders]]", "bronze_orders", {}, 0, false};
  BatchReport b;
  b.batch_id = 3;
  b.input_rows = 1000;
  b.output_rows = 998;
  b.quarantined = 2;
  b.seconds = 0.5;
  b.started_at_us = t0 + 4000000;
  b.durations_ms = {{"triggerExecution", 500}};
  b.start_offset = {{"0", 10}, {"1", 20}};
  b.end_offset = {{"0", 510}, {"1", 520}};
  b.latest_offset = {{"0", 600}, {"1", 520}};
  BatchProgress live = batch_progress(ingest, b, t0);
  expect_same(live, decode_progress(progress_record(ingest, b, "run", t0)));
  EXPECT_EQ(live.lag, (std::map<std::string, int64_t>{{"0", 90}, {"1", 0}}));
  EXPECT_DOUBLE_EQ(live.input_rows_per_second, 250.0) << "1000 rows over the 4 s since the batch before";
  EXPECT_FALSE(live.watermark_us.has_value());

  StreamReport window{"hourly", "id-2", "DeltaSource[bronze_orders]", "gold", {}, 0, false};
  BatchReport w;
  w.batch_id = 7;
  w.input_rows = 40;
  w.output_rows = 3;
  w.late_dropped = 5;
  w.duplicates_dropped = 1;
  w.watermark_us = t0 - 600000000;
  w.event_time = EventTimeStats{t0 - 900000000, t0, static_cast<double>(t0 - 450000000)};
  w.state = StateReport{12, 4, 2, 8192};
  w.seconds = 0.1;
  w.started_at_us = t0;
  w.start_offset = 4;
  w.end_offset = 6;
  w.latest_offset = 9;
  BatchProgress window_live = batch_progress(window, w, std::nullopt);
  expect_same(window_live, decode_progress(progress_record(window, w, "run", std::nullopt)));
  EXPECT_EQ(window_live.end_version, 6);
  EXPECT_EQ(window_live.total_lag(), 3);

  BatchProgress failed = failure_progress("hourly", "broker down");
  EXPECT_EQ(failed.failure, "broker down");
  EXPECT_EQ(decode_progress(failure_record("hourly", "run", "broker down")).failure, "broker down");
}

}  // namespace
}  // namespace lakestream::testing
