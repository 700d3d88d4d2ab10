// The full example pipeline file loads with every value as written: order of fields, streams
// and aggregates, durations in microseconds, absolute paths, defaults.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "pipeline/pipeline.h"
#include "support/test_support.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {
namespace {

using testing::TempDir;
using testing::write_text;

// The example of docs/pipeline-file.md (the shop pipeline), with the Event Hubs properties.
const char* kShopPipeline = R"TOML([kafka]
bootstrap = "embedded"
[kafka.properties]
"security.protocol" = "SASL_SSL"
"sasl.mechanism" = "PLAIN"
"sasl.username" = "$ConnectionString"
"sasl.password" = "${LAKESTREAM_TEST_CONNECTION_STRING}"

[lake]
tables = "lake"
checkpoints = "state/checkpoints"

[sources.orders]
topic = "orders"
key = "order_id"
starting_offsets = "earliest"
max_offsets_per_trigger = 10000
max_value_bytes = 1048576
sent_twice_by = "the shop's system"
required = ["order_id", "event_time"]
[sources.orders.schema]
order_id = "bigint"
customer_id = "string"
status = "string"
amount = "decimal(18,2)"
event_time = "timestamp"

[streams.read_orders]
kind = "ingest"
source = "orders"
table = "bronze_orders"

[streams.latest_orders]
kind = "latest"
from = "bronze_orders"
table = "orders"
key = ["order_id"]
order_by = "event_time"

[streams.hourly_sales]
kind = "window"
from = "bronze_orders"
table = "hourly_sales"
filter = "status = 'placed'"
event_time = "event_time"
watermark = "1 hour"
dedup = ["order_id", "status"]
window = "1 hour"
window_column = "hour"
group_by = []
output = "append"
[streams.hourly_sales.aggregates]
orders = "count(*)"
revenue = "sum(amount)"
)TOML";

constexpr int64_t kHourUs = 3'600'000'000;

class PipelineFileTest : public ::testing::Test {
 protected:
  void SetUp() override { setenv("LAKESTREAM_TEST_CONNECTION_STRING", "Endpoint=sb://shop/;SharedAccessKey=k3y", 1); }
  void TearDown() override { unsetenv("LAKESTREAM_TEST_CONNECTION_STRING"); }
  TempDir dir;
};

TEST_F(PipelineFileTest, TheShopPipelineLoadsWithEveryValue) {
  write_text(dir / "project/lakestream.toml", kShopPipeline);
  Pipeline p = load_pipeline(dir / "project/lakestream.toml");

  EXPECT_EQ(p.path, dir / "project/lakestream.toml");
  EXPECT_EQ(p.dir, dir / "project");
  EXPECT_EQ(p.tables_dir, dir / "project/lake");
  EXPECT_EQ(p.checkpoints_dir, dir / "project/state/checkpoints");
  EXPECT_EQ(p.table_path("orders"), dir / "project/lake/orders");
  EXPECT_EQ(p.checkpoint_path("hourly_sales"), dir / "project/state/checkpoints/hourly_sales");

  EXPECT_EQ(p.kafka.bootstrap, "embedded");
  using Property = std::pair<std::string, std::string>;
  EXPECT_EQ(p.kafka.properties, (std::vector<Property>{{"security.protocol", "SASL_SSL"},
                                                       {"sasl.mechanism", "PLAIN"},
                                                       {"sasl.username", "$ConnectionString"},
                                                       {"sasl.password", "Endpoint=sb://shop/;SharedAccessKey=k3y"}}));

  ASSERT_EQ(p.sources.size(), 1u);
  const Source& orders = p.sources[0];
  EXPECT_EQ(orders.name, "orders");
  EXPECT_EQ(orders.topic, "orders");
  EXPECT_EQ(orders.key_field, "order_id");
  EXPECT_FALSE(orders.start_at_latest);
  EXPECT_EQ(orders.max_offsets_per_trigger, 10000);
  EXPECT_EQ(orders.max_value_bytes, 1048576);
  EXPECT_EQ(orders.sent_twice_by, "the shop's system");
  EXPECT_EQ(orders.line, 13);
  ASSERT_EQ(orders.schema.fields.size(), 5u);
  std::vector<std::string> names, types, duckdb_types, delta_types;
  std::vector<bool> required;
  for (const auto& f : orders.schema.fields) {
    names.push_back(f.name);
    types.push_back(f.type_text());
    duckdb_types.push_back(f.duckdb_type());
    delta_types.push_back(f.delta_type());
    required.push_back(f.required);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"order_id", "customer_id", "status", "amount", "event_time"}));
  EXPECT_EQ(types, (std::vector<std::string>{"bigint", "string", "string", "decimal(18,2)", "timestamp"}));
  EXPECT_EQ(duckdb_types, (std::vector<std::string>{"BIGINT", "VARCHAR", "VARCHAR", "DECIMAL(18,2)", "TIMESTAMPTZ"}));
  EXPECT_EQ(delta_types, (std::vector<std::string>{"long", "string", "string", "decimal(18,2)", "timestamp"}));
  EXPECT_EQ(required, (std::vector<bool>{true, false, false, false, true}));
  ASSERT_NE(orders.schema.find("amount"), nullptr);
  EXPECT_EQ(orders.schema.find("amount")->precision, 18);
  EXPECT_EQ(orders.schema.find("amount")->scale, 2);
  EXPECT_EQ(orders.schema.find("price"), nullptr);

  ASSERT_EQ(p.streams.size(), 3u);
  const Stream& read = p.streams[0];
  EXPECT_EQ(read.name, "read_orders");
  EXPECT_EQ(read.kind, StreamKind::Ingest);
  EXPECT_EQ(read.source, "orders");
  EXPECT_EQ(read.table, "bronze_orders");
  EXPECT_EQ(read.line, 28);

  const Stream& latest = p.streams[1];
  EXPECT_EQ(latest.name, "latest_orders");
  EXPECT_EQ(latest.kind, StreamKind::Latest);
  EXPECT_EQ(latest.from, "bronze_orders");
  EXPECT_EQ(latest.table, "orders");
  EXPECT_EQ(latest.key, std::vector<std::string>{"order_id"});
  EXPECT_EQ(latest.order_by, "event_time");
  EXPECT_EQ(latest.entity, "order");

  const Stream& hourly = p.streams[2];
  EXPECT_EQ(hourly.name, "hourly_sales");
  EXPECT_EQ(hourly.kind, StreamKind::Window);
  EXPECT_EQ(hourly.from, "bronze_orders");
  EXPECT_EQ(hourly.filter, "status = 'placed'");
  EXPECT_EQ(hourly.event_time, "event_time");
  EXPECT_EQ(hourly.watermark_delay_us, kHourUs);
  EXPECT_EQ(hourly.dedup, (std::vector<std::string>{"order_id", "status"}));
  EXPECT_EQ(hourly.window_us, kHourUs);
  EXPECT_EQ(hourly.window_column, "hour");
  EXPECT_TRUE(hourly.group_by.empty());
  EXPECT_EQ(hourly.output, OutputMode::Append);
  ASSERT_EQ(hourly.aggregates.size(), 2u);
  EXPECT_EQ(hourly.aggregates[0].name, "orders");
  EXPECT_EQ(hourly.aggregates[0].function, "count");
  EXPECT_EQ(hourly.aggregates[0].argument, "*");
  EXPECT_EQ(hourly.aggregates[1].name, "revenue");
  EXPECT_EQ(hourly.aggregates[1].function, "sum");
  EXPECT_EQ(hourly.aggregates[1].argument, "amount");

  EXPECT_EQ(p.find_stream("hourly_sales"), &hourly);
  EXPECT_EQ(p.find_stream("nightly"), nullptr);
  EXPECT_EQ(p.find_source("orders"), &orders);
  EXPECT_EQ(p.writer_of("bronze_orders"), &read);
  EXPECT_EQ(p.writer_of("bronze_orders_quarantine"), nullptr);
  EXPECT_EQ(p.table_names(),
            (std::vector<std::string>{"bronze_orders", "bronze_orders_quarantine", "orders", "hourly_sales"}));
  EXPECT_EQ(p.in_dependency_order(), (std::vector<const Stream*>{&read, &latest, &hourly}));
}

TEST_F(PipelineFileTest, DefaultsApplyWhenSettingsAreLeftOut) {
  write_text(dir / "lakestream.toml", R"TOML(
[kafka]
bootstrap = "localhost:9092"
[sources.clicks.schema]
user_id = "string"
at = "timestamp"
[streams.read_clicks]
kind = "ingest"
source = "clicks"
table = "bronze_clicks"
[streams.latest_clicks]
kind = "latest"
from = "bronze_clicks"
table = "clicks"
key = "user_id"
order_by = "at"
[streams.per_user]
kind = "latest"
from = "bronze_clicks"
table = "per_user"
key = ["user_id", "at"]
order_by = "offset"
[streams.minutely]
kind = "window"
from = "bronze_clicks"
table = "minutely"
event_time = "kafka_timestamp"
watermark = "0 seconds"
window = "15m"
output = "update"
group_by = "user_id"
aggregates = { clicks = "COUNT(user_id)", last = "max(at)" }
)TOML");
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  EXPECT_EQ(p.tables_dir, dir / "lake");
  EXPECT_EQ(p.checkpoints_dir, dir / "checkpoints");
  EXPECT_TRUE(p.kafka.properties.empty());
  const Source& clicks = p.sources.at(0);
  EXPECT_EQ(clicks.topic, "clicks");
  EXPECT_EQ(clicks.key_field, "");
  EXPECT_FALSE(clicks.start_at_latest);
  EXPECT_EQ(clicks.max_offsets_per_trigger, 0);
  EXPECT_EQ(clicks.max_value_bytes, 1 << 20);
  EXPECT_EQ(clicks.sent_twice_by, "the producer");
  EXPECT_EQ(p.streams[1].key, std::vector<std::string>{"user_id"});
  EXPECT_EQ(p.streams[1].entity, "user");
  EXPECT_EQ(p.streams[2].entity, "row");
  const Stream& minutely = p.streams[3];
  EXPECT_EQ(minutely.watermark_delay_us, 0);
  EXPECT_EQ(minutely.window_us, 15 * 60'000'000LL);
  EXPECT_EQ(minutely.window_column, "window_start");
  EXPECT_TRUE(minutely.dedup.empty());
  EXPECT_TRUE(minutely.filter.empty());
  EXPECT_EQ(minutely.output, OutputMode::Update);
  EXPECT_EQ(minutely.group_by, std::vector<std::string>{"user_id"});
  ASSERT_EQ(minutely.aggregates.size(), 2u);
  EXPECT_EQ(minutely.aggregates[0].name, "clicks");
  EXPECT_EQ(minutely.aggregates[0].function, "count");
  EXPECT_EQ(minutely.aggregates[0].argument, "user_id");
  EXPECT_EQ(minutely.aggregates[1].name, "last");
}

TEST_F(PipelineFileTest, AbsoluteLakeFoldersStayAsWritten) {
  write_text(dir / "a/lakestream.toml", "[kafka]\nbootstrap = \"embedded\"\n[lake]\ntables = \"" + dir.path() +
                                            "/shared/lake/\"\ncheckpoints = \"../ckpt\"\n"
                                            "[sources.s.schema]\nx = \"int\"\n"
                                            "[streams.ingest_s]\nkind = \"ingest\"\nsource = \"s\"\ntable = \"s\"\n");
  Pipeline p = load_pipeline(dir / "a/lakestream.toml");
  EXPECT_EQ(p.tables_dir, dir / "shared/lake");
  EXPECT_EQ(p.checkpoints_dir, dir / "ckpt");
}

TEST_F(PipelineFileTest, ARelativePathIsResolvedAgainstTheCurrentFolder) {
  write_text(dir / "lakestream.toml", kShopPipeline);
  std::string previous = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  Pipeline p = load_pipeline("lakestream.toml");
  std::filesystem::current_path(previous);
  EXPECT_EQ(p.path, dir / "lakestream.toml");
  EXPECT_EQ(p.tables_dir, dir / "lake");
}

TEST_F(PipelineFileTest, DependencyOrderPutsReadersAfterWritersAndKeepsFileOrderOtherwise) {
  // The gold stream is declared first; it must still run after the streams it reads.
  write_text(dir / "lakestream.toml", R"TOML(
[kafka]
bootstrap = "embedded"
[sources.a.schema]
id = "bigint"
t = "timestamp"
[streams.gold]
kind = "latest"
from = "silver"
table = "gold"
key = "id"
order_by = "t"
[streams.other_bronze]
kind = "ingest"
source = "a"
table = "bronze_2"
[streams.silver]
kind = "latest"
from = "bronze"
table = "silver"
key = "id"
order_by = "t"
[streams.bronze]
kind = "ingest"
source = "a"
table = "bronze"
)TOML");
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  std::vector<std::string> order;
  for (const Stream* s : p.in_dependency_order()) order.push_back(s->name);
  EXPECT_EQ(order, (std::vector<std::string>{"other_bronze", "bronze", "silver", "gold"}));
}

TEST_F(PipelineFileTest, ColumnMappingFromTheLakeUnlessAStreamSaysOtherwise) {
  write_text(dir / "lakestream.toml", "[kafka]\nbootstrap = \"embedded\"\n[lake]\ncolumn_mapping = \"id\"\n"
                                      "[sources.orders.schema]\nid = \"bigint\"\nt = \"timestamp\"\n"
                                      "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n"
                                      "[streams.latest]\nkind = \"latest\"\nfrom = \"bronze\"\ntable = \"silver\"\n"
                                      "key = \"id\"\norder_by = \"t\"\ncolumn_mapping = \"none\"\n");
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  EXPECT_EQ(p.table_properties(p.streams[0]), (std::map<std::string, std::string>{{"delta.columnMapping.mode", "id"}}));
  EXPECT_TRUE(p.table_properties(p.streams[1]).empty()) << "none asks nothing of the table";
}

TEST_F(PipelineFileTest, ServiceAndCompactionSettingsLoadWithTheirDefaults) {
  write_text(dir / "lakestream.toml", "[kafka]\nbootstrap = \"embedded\"\n[service]\ntarget_latency = \"500ms\"\n"
                                      "[lake]\ncompact = false\ntarget_file_size = \"64 MiB\"\ncompact_min_files = 4\n"
                                      "[sources.orders.schema]\nid = \"bigint\"\nt = \"timestamp\"\n"
                                      "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n"
                                      "[streams.latest]\nkind = \"latest\"\nfrom = \"bronze\"\ntable = \"silver\"\n"
                                      "key = \"id\"\norder_by = \"t\"\ntarget_latency = \"3s\"\n");
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  EXPECT_FALSE(p.compact);
  EXPECT_EQ(p.target_file_bytes, 64LL << 20);
  EXPECT_EQ(p.compact_min_files, 4);
  EXPECT_EQ(p.target_latency_of(p.streams[0]), 500'000);
  EXPECT_EQ(p.target_latency_of(p.streams[1]), 3'000'000);
  EXPECT_TRUE(p.table_properties(p.streams[0]).empty()) << "no column mapping by default";
  write_text(dir / "plain.toml", "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\nid = \"bigint\"\n"
                                 "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n");
  Pipeline plain = load_pipeline(dir / "plain.toml");
  EXPECT_TRUE(plain.compact);
  EXPECT_EQ(plain.target_file_bytes, 128LL << 20);
  EXPECT_EQ(plain.compact_min_files, 10);
  EXPECT_EQ(plain.target_latency_of(plain.streams[0]), 0);
  EXPECT_EQ(plain.checkpoint_policy, "classic");
  write_text(dir / "v2.toml", "[kafka]\nbootstrap = \"embedded\"\n[lake]\ncheckpoint_policy = \"v2\"\n"
                              "[sources.orders.schema]\nid = \"bigint\"\n"
                              "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n");
  Pipeline v2 = load_pipeline(dir / "v2.toml");
  EXPECT_EQ(v2.table_properties(v2.streams[0]), (std::map<std::string, std::string>{{"delta.checkpointPolicy", "v2"}}));
}

// The documented example is the one users copy: it must load as is.
TEST_F(PipelineFileTest, TheDocumentedExampleLoads) {
  std::string doc = read_file(testing::source_dir() + "/docs/pipeline-file.md");
  size_t start = doc.find("```toml\n");
  ASSERT_NE(start, std::string::npos);
  start += 8;
  std::string example = doc.substr(start, doc.find("```", start) - start);
  write_text(dir / "lakestream.toml", example);
  setenv("EVENTHUBS_CONNECTION_STRING", "Endpoint=sb://x/", 1);
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  unsetenv("EVENTHUBS_CONNECTION_STRING");
  EXPECT_EQ(p.streams.size(), 3u);
  EXPECT_EQ(p.sources.at(0).schema.fields.size(), 5u);
  EXPECT_EQ(p.streams[0].partition_by, std::vector<std::string>{"dt"});
  ASSERT_EQ(p.streams[0].derived.size(), 1u);
  EXPECT_EQ(p.streams[0].derived[0].second, "date(event_time)");
  EXPECT_DOUBLE_EQ(p.streams[0].max_quarantine_share, 0.01);
  EXPECT_DOUBLE_EQ(p.streams[2].max_late_share, 0.01);
  EXPECT_EQ(p.streams[2].max_staleness_us, 3LL * 3600 * 1000000);
}

}  // namespace
}  // namespace lakestream
