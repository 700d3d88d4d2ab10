// A Kinesis source in the pipeline file: its settings as written, the times starting_position
// takes (UTC, offsets, fractions), no [kafka] when every source is a Kinesis stream, and no
// ingest workers for it even when [kafka] names a group.
#include <gtest/gtest.h>

#include "pipeline/pipeline.h"
#include "support/test_support.h"
#include "util/error.h"

namespace lakestream {
namespace {

using testing::TempDir;
using testing::write_text;

Pipeline load(const std::string& toml) {
  TempDir dir;
  write_text(dir / "lakestream.toml", toml);
  return load_pipeline(dir / "lakestream.toml");
}

std::string kinesis_source(const std::string& settings) {
  return "[sources.orders]\nkinesis = \"orders-prod\"\n" + settings +
         "[sources.orders.schema]\norder_id = \"bigint\"\n"
         "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n";
}

TEST(KinesisSource, TheSettingsAreReadAsWritten) {
  Pipeline p = load(kinesis_source("region = \"eu-west-1\"\nendpoint = \"http://127.0.0.1:4567/\"\n"
                                   "starting_position = \"latest\"\nmax_records_per_trigger = 500\n"));
  const Source& s = p.sources.at(0);
  EXPECT_TRUE(s.is_kinesis());
  EXPECT_EQ(s.kinesis.stream, "orders-prod");
  EXPECT_EQ(s.topic, "orders-prod");  // the schema registry's subject is orders-prod-value
  EXPECT_EQ(s.kinesis.region, "eu-west-1");
  EXPECT_EQ(s.kinesis.endpoint, "http://127.0.0.1:4567");
  EXPECT_EQ(s.kinesis.start, KinesisSettings::Start::Latest);
  EXPECT_EQ(s.max_offsets_per_trigger, 500);
  EXPECT_TRUE(p.kafka.topics.empty()) << "a Kinesis stream is no topic of the brokers";
  EXPECT_TRUE(p.kafka.bootstrap.empty());

  Pipeline defaults = load(kinesis_source(""));
  EXPECT_EQ(defaults.sources.at(0).kinesis.start, KinesisSettings::Start::TrimHorizon);
  EXPECT_EQ(defaults.sources.at(0).max_offsets_per_trigger, 0);
}

TEST(KinesisSource, AStartingTimeIsAnInstant) {
  struct Case {
    const char* text;
    int64_t ms;
  };
  for (const Case& c : {Case{"2026-10-01T00:00:00Z", 1790812800000}, Case{"2026-10-01T02:00:00+02:00", 1790812800000},
                        Case{"2026-09-30T19:30:00-04:30", 1790812800000}, Case{"2026-10-01 00:00:00.25Z", 1790812800250},
                        Case{"2026-10-01T00:00:00.123456Z", 1790812800123}}) {
    SCOPED_TRACE(c.text);
    Pipeline p = load(kinesis_source(std::string("starting_position = \"") + c.text + "\"\n"));
    EXPECT_EQ(p.sources.at(0).kinesis.start, KinesisSettings::Start::AtTimestamp);
    EXPECT_EQ(p.sources.at(0).kinesis.start_timestamp_ms, c.ms);
  }
  for (const char* bad : {"2026-10-01", "2026-10-01T00:00:00", "2026-13-01T00:00:00Z", "yesterday", "2026-10-01T00:00:00+2"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(load(kinesis_source(std::string("starting_position = \"") + bad + "\"\n")), Error);
  }
}

TEST(KinesisSource, AKafkaGroupMakesNoWorkersOfAKinesisStream) {
  Pipeline p = load("[kafka]\nbootstrap = \"embedded\"\ngroup = \"shop\"\n" + kinesis_source(""));
  EXPECT_EQ(p.worker_group(*p.find_stream("read_orders")), "");
}

TEST(KinesisSource, AMixedPipelineStillNeedsKafka) {
  try {
    load(kinesis_source("") + "[sources.clicks]\ntopic = \"clicks\"\n[sources.clicks.schema]\nid = \"bigint\"\n");
    FAIL() << "a Kafka source without [kafka] was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("kafka.bootstrap: missing"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lakestream
