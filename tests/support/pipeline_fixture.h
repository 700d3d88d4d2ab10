// A pipeline folder beside an embedded Kafka broker, for tests that use lakestream as a user
// does: events go in over TCP with the idempotent producer, the lakestream binary runs the
// streams, and tables are read back with `lakestream query`. Header-only; a test program that
// includes it links lakestream_broker and lakestream_source.
#pragma once

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <sstream>
#include <string>
#include <vector>

#include "broker/embedded_broker.h"
#include "source/json_producer.h"
#include "support/test_support.h"

namespace lakestream::testing {

class PipelineFixture {
 public:
  // `pipeline_toml` may say bootstrap = "@BOOTSTRAP@"; it becomes the broker's address. Each
  // partition keeps `retention_bytes`.
  PipelineFixture(const std::string& pipeline_toml, const std::vector<TopicSpec>& topics,
                  int64_t retention_bytes = kEmbeddedDefaultRetentionBytes)
      : broker_(topics, 1, retention_bytes), pipeline_file_(dir_ / "lakestream.toml") {
    write_pipeline(pipeline_toml);
  }

  void write_pipeline(std::string toml) {
    auto at = toml.find("@BOOTSTRAP@");
    if (at != std::string::npos) toml.replace(at, 11, broker_.bootstrap());
    write_text(pipeline_file_, toml);
  }

  // Sends JSON lines; fails the test unless every one was delivered.
  void produce(const std::string& topic, const std::string& lines, const std::string& key_field = "") {
    KafkaSettings kafka;
    kafka.bootstrap = broker_.bootstrap();
    std::istringstream in(lines);
    ProduceResult result = produce_json_lines(kafka, topic, key_field, in);
    ASSERT_EQ(result.failed, 0) << result.first_error;
  }

  // Sends one message with an empty value (JSON lines cannot say that), to partition 0.
  void produce_empty(const std::string& topic) {
    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", broker_.bootstrap().c_str(), err, sizeof err);
    rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    ASSERT_NE(producer, nullptr) << err;
    ASSERT_EQ(rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(0),
                                RD_KAFKA_V_VALUE(nullptr, 0), RD_KAFKA_V_END),
              RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(rd_kafka_flush(producer, 10000), RD_KAFKA_RESP_ERR_NO_ERROR);
    rd_kafka_destroy(producer);
  }

  // Runs `lakestream <command> -p <pipeline> <args...>`.
  CommandResult lakestream(const std::string& command, const std::vector<std::string>& args = {},
                           const std::vector<std::string>& env = {}) {
    std::vector<std::string> all{command, "-p", pipeline_file_};
    all.insert(all.end(), args.begin(), args.end());
    return run_lakestream(all, dir_.path(), "", env);
  }

  // The same, killed with SIGKILL after `ms` milliseconds if still running.
  CommandResult lakestream_killed_after(int ms, const std::string& command, const std::vector<std::string>& args = {}) {
    std::vector<std::string> all{command, "-p", pipeline_file_};
    all.insert(all.end(), args.begin(), args.end());
    return run_lakestream_killed_after(all, dir_.path(), ms);
  }

  // `lakestream query --format csv`: the rows as CSV lines (header first); fails the test on error.
  std::string query(const std::string& sql) {
    CommandResult r = lakestream("query", {"--format", "csv", sql});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  EmbeddedBroker& broker() { return broker_; }
  const std::string& dir() const { return dir_.path(); }
  const std::string& pipeline_file() const { return pipeline_file_; }

 private:
  TempDir dir_;
  EmbeddedBroker broker_;
  std::string pipeline_file_;
};

}  // namespace lakestream::testing
