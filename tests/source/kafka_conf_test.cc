// make_kafka_conf and resolve_bootstrap: what a user sees when a setting is wrong.
#include "source/kafka_conf.h"

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "broker/broker_address.h"
#include "support/test_support.h"
#include "util/error.h"

namespace lakestream {
namespace {

std::string error_of(const KafkaSettings& kafka) {
  try {
    rd_kafka_conf_destroy(make_kafka_conf(kafka));
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(KafkaConf, PassesPropertiesThrough) {
  rd_kafka_conf_t* conf = make_kafka_conf({"host1:9092,host2:9092", {{"client.id", "shop-etl"}}});
  EXPECT_EQ(kafka_property(conf, "bootstrap.servers"), "host1:9092,host2:9092");
  EXPECT_EQ(kafka_property(conf, "client.id"), "shop-etl");
  rd_kafka_conf_destroy(conf);
}

TEST(KafkaConf, RefusedPropertyNamesItAndHidesSecrets) {
  EXPECT_NE(error_of({"h:9092", {{"fetch.wait.max.ms", "soon"}}}).find("kafka property 'fetch.wait.max.ms': "),
            std::string::npos);
  EXPECT_NE(error_of({"h:9092", {{"no.such.property", "1"}}}).find("kafka property 'no.such.property': "),
            std::string::npos);
  // A secret's value (and librdkafka's message, which may quote it) never reaches a message.
  std::string message = error_of({"h:9092", {{"vendor.plugin.secret", "hunter2"}}});
  EXPECT_NE(message.find("kafka property 'vendor.plugin.secret': librdkafka refused its value (not shown"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.find("hunter2"), std::string::npos);
  EXPECT_NE(error_of({"", {}}).find("kafka bootstrap is not set"), std::string::npos);
}

TEST(ResolveBootstrap, EmbeddedNeedsARunningBroker) {
  testing::TempDir dir;
  std::string file = dir / "broker.json";
  setenv("LAKESTREAM_BROKER_FILE", file.c_str(), 1);
  EXPECT_EQ(broker_address_file(), file);
  EXPECT_EQ(resolve_bootstrap("kafka:9092"), "kafka:9092");
  std::string expected = "bootstrap = \"embedded\" but no embedded broker is running: start one with "
                         "`lakestream broker --topic orders:3` (it writes " + file + ")";
  EXPECT_EQ(error_of({"embedded", {}, {"orders"}}), expected);
  // A file left behind by a broker that died (a pid that cannot exist) is no broker either.
  write_broker_address(file, {"127.0.0.1:1", 999999999, 0, {}});
  EXPECT_EQ(error_of({"embedded", {}, {"orders"}}), expected);
  write_broker_address(file, {"127.0.0.1:1234", static_cast<int>(getpid()), 0, {{"orders", 3}}});
  EXPECT_EQ(resolve_bootstrap("embedded"), "127.0.0.1:1234");
  testing::write_text(file, "not json");
  EXPECT_NE(error_of({"embedded", {}}).find("is not a broker address file"), std::string::npos);
  unsetenv("LAKESTREAM_BROKER_FILE");
}

}  // namespace
}  // namespace lakestream
