// Turning pipeline Kafka settings into a librdkafka configuration, with errors that name the
// property and keep secrets out of messages.
#include "source/kafka_conf.h"

#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <cstdlib>

#include "broker/embedded_broker.h"
#include "util/error.h"

namespace lakestream {

namespace {

// librdkafka logs every failed connection attempt, which would drown lakestream's own message
// (an unreachable broker ends the run with an Error that says so). Its log is shown only when
// LAKESTREAM_KAFKA_LOG is set, for debugging a connection.
void kafka_log(const rd_kafka_t*, int level, const char* facility, const char* message) {
  static const bool shown = std::getenv("LAKESTREAM_KAFKA_LOG") != nullptr;
  if (shown) std::fprintf(stderr, "lakestream: kafka %d %s: %s\n", level, facility, message);
}

}  // namespace

void set_kafka_property(rd_kafka_conf_t* conf, const std::string& name, const std::string& value) {
  char errstr[512];
  if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), errstr, sizeof errstr) == RD_KAFKA_CONF_OK) return;
  if (is_secret_property(name))
    throw Error("kafka property '" + name + "': librdkafka refused its value (not shown: it is a secret); check it");
  throw Error("kafka property '" + name + "': " + errstr +
              " (librdkafka's properties: https://github.com/confluentinc/librdkafka/blob/v2.0.2/CONFIGURATION.md)");
}

std::string kafka_property(rd_kafka_conf_t* conf, const std::string& name) {
  size_t size = 0;
  if (rd_kafka_conf_get(conf, name.c_str(), nullptr, &size) != RD_KAFKA_CONF_OK || size == 0) return "";
  std::string value(size, '\0');
  rd_kafka_conf_get(conf, name.c_str(), value.data(), &size);
  value.resize(size - 1);  // size counts the terminating NUL
  return value;
}

bool has_kafka_property(const KafkaSettings& kafka, const std::string& name) {
  for (const auto& [key, value] : kafka.properties)
    if (key == name) return true;
  return false;
}

rd_kafka_conf_t* make_kafka_conf(const KafkaSettings& kafka) {
  if (kafka.bootstrap.empty())
    throw Error("kafka bootstrap is not set: give the brokers (\"host:9092\") or \"embedded\" for `lakestream broker`");
  std::string bootstrap = resolve_bootstrap(kafka.bootstrap, kafka.topics);
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, kafka_log);
  try {
    set_kafka_property(conf, "bootstrap.servers", bootstrap);
    // A mistyped topic must be an error that names it, not a new empty topic (the embedded broker
    // and many clusters create any topic a client asks about).
    set_kafka_property(conf, "allow.auto.create.topics", "false");
    for (const auto& [name, value] : kafka.properties) set_kafka_property(conf, name, value);
  } catch (...) {
    rd_kafka_conf_destroy(conf);
    throw;
  }
  return conf;
}

}  // namespace lakestream
