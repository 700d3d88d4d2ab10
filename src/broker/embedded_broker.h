// The embedded Kafka-protocol broker: librdkafka's mock cluster (with our patch,
// packaging/librdkafka/), served over TCP on loopback so that any Kafka client can connect. For
// development, tests and the demo; it keeps data in memory only, up to its retention per
// partition, and has no DeleteTopics, so topics are created up front.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

struct rd_kafka_s;
struct rd_kafka_mock_cluster_s;

namespace lakestream {

struct TopicSpec {
  std::string name;
  int partitions = 1;
};

// Parses "orders:3" (or "orders", one partition); throws Error with the expected form.
TopicSpec parse_topic_spec(const std::string& text);

// How many bytes of record batches each partition keeps unless told otherwise: past that its
// oldest batches are deleted. Memory use is about this times the partitions written to, so the
// default is what a laptop holds for a few topics; a service sets more (`--retention 2GiB`).
constexpr int64_t kEmbeddedDefaultRetentionBytes = 256LL << 20;

class EmbeddedBroker {
 public:
  // Starts `brokers` mock brokers and creates `topics` before any client can ask for metadata
  // (the mock would auto-create an unknown topic with 4 partitions). Each partition keeps
  // `retention_bytes` of record batches (> 0); a Fetch costs the same however long the log.
  explicit EmbeddedBroker(const std::vector<TopicSpec>& topics, int brokers = 1,
                          int64_t retention_bytes = kEmbeddedDefaultRetentionBytes);
  ~EmbeddedBroker();
  EmbeddedBroker(const EmbeddedBroker&) = delete;
  EmbeddedBroker& operator=(const EmbeddedBroker&) = delete;

  // "127.0.0.1:port,..." for bootstrap.servers.
  const std::string& bootstrap() const { return bootstrap_; }
  // Creates one more topic.
  void create_topic(const TopicSpec& topic);
  // Wipes every topic and creates them again, empty (the mock cannot delete one topic): a new
  // cluster on new ports; bootstrap() changes.
  void reset();
  // The mock cluster, for fault injection in tests (rdkafka_mock.h).
  rd_kafka_mock_cluster_s* mock() { return mock_; }
  const std::vector<TopicSpec>& topics() const { return topics_; }
  int64_t retention_bytes() const { return retention_bytes_; }

 private:
  void start();
  void stop();
  int brokers_;
  int64_t retention_bytes_;
  std::vector<TopicSpec> topics_;
  rd_kafka_s* handle_ = nullptr;  // the client handle that owns the mock cluster
  rd_kafka_mock_cluster_s* mock_ = nullptr;
  std::string bootstrap_;
};

// Where `lakestream broker [--name NAME]` writes its address, so that `bootstrap = "embedded"`
// (or "embedded:NAME") finds it: $LAKESTREAM_BROKER_FILE, else
// $XDG_RUNTIME_DIR/lakestream/broker.json, else /tmp/lakestream-<uid>/broker.json; a named broker
// uses broker-NAME.json in the same folder, so each project on a machine can have its own.
std::string broker_address_file(const std::string& name = "");

// The broker name of an embedded bootstrap: "" for "embedded", NAME for "embedded:NAME"; nullopt
// for real brokers. Error when NAME is not a plain name (letters, digits, '.', '_', '-').
std::optional<std::string> embedded_broker_name(const std::string& bootstrap);

// Resolves a pipeline's bootstrap: "embedded" or "embedded:NAME" reads that broker's address file
// (Error saying how to start `lakestream broker` with `topics` when it is missing or its process is
// gone); anything else is returned as is.
std::string resolve_bootstrap(const std::string& bootstrap, const std::vector<std::string>& topics = {});

}  // namespace lakestream
