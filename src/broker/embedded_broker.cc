// The embedded broker: one librdkafka handle that owns a mock cluster, with our topics created
// before the address is handed out (so no client can auto-create them with the wrong count).
#include "broker/embedded_broker.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#ifndef RD_KAFKA_MOCK_RETENTION_API
#error "this librdkafka lacks packaging/librdkafka/mock-index.patch: build with the one scripts/setup builds"
#endif

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <set>

#include "util/error.h"
#include "util/plural.h"

namespace lakestream {

TopicSpec parse_topic_spec(const std::string& text) {
  auto colon = text.rfind(':');
  TopicSpec spec;
  spec.name = text.substr(0, colon);
  if (colon != std::string::npos) {
    std::string count = text.substr(colon + 1);
    auto [end, ec] = std::from_chars(count.data(), count.data() + count.size(), spec.partitions);
    if (ec != std::errc() || end != count.data() + count.size() || spec.partitions < 1 || spec.partitions > 10000)
      throw Error("topic '" + text + "': the partition count must be a number from 1 to 10000, as in orders:3");
  }
  if (spec.name.empty()) throw Error("topic '" + text + "': give a topic name, as in orders:3 (name:partitions)");
  for (char c : spec.name) {
    // Kafka's legal topic characters; anything else would be refused by clients later, less clearly.
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'))
      throw Error("topic '" + spec.name + "': Kafka topic names use only letters, digits, '.', '_' and '-'");
  }
  return spec;
}

EmbeddedBroker::EmbeddedBroker(const std::vector<TopicSpec>& topics, int brokers, int64_t retention_bytes)
    : brokers_(brokers), retention_bytes_(retention_bytes), topics_(topics) {
  if (brokers < 1) throw Error("the embedded broker needs at least 1 broker (got " + std::to_string(brokers) + ")");
  if (retention_bytes < 1)
    throw Error("the embedded broker's retention must be at least 1 byte per partition (got " +
                std::to_string(retention_bytes) + ")");
  start();
}

EmbeddedBroker::~EmbeddedBroker() { stop(); }

namespace {
// The owning handle never connects anywhere; only the mock cluster's own errors are worth showing.
void quiet_log(const rd_kafka_t*, int level, const char* facility, const char* message) {
  if (level <= 3) fprintf(stderr, "embedded broker: %s: %s\n", facility, message);
}

// The mock cluster's sockets keep Nagle's algorithm on. A response written in two parts then
// waits for the client's delayed ACK: 40 ms added to about every other request (a run with
// nothing new took 70 ms instead of 30). Accepted sockets inherit TCP_NODELAY from their
// listening socket, and librdkafka gives no handle on it, so the listening sockets on the
// cluster's ports are found among this process's descriptors.
void answer_without_delay(const std::string& bootstrap) {
  std::set<int> ports;
  for (size_t at = 0; at < bootstrap.size();) {
    size_t end = bootstrap.find(',', at);
    if (end == std::string::npos) end = bootstrap.size();
    size_t colon = bootstrap.rfind(':', end - 1);
    if (colon != std::string::npos && colon > at) ports.insert(std::atoi(bootstrap.substr(colon + 1, end - colon - 1).c_str()));
    at = end + 1;
  }
  DIR* fds = opendir("/proc/self/fd");
  if (!fds) return;  // only slower, never wrong
  while (dirent* entry = readdir(fds)) {
    int fd = std::atoi(entry->d_name);
    if (fd <= 2 || fd == dirfd(fds)) continue;
    int listening = 0;
    socklen_t size = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &size) != 0 || !listening) continue;
    sockaddr_in address{};
    size = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0 || address.sin_family != AF_INET) continue;
    if (!ports.count(ntohs(address.sin_port))) continue;
    int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  }
  closedir(fds);
}

}  // namespace

void EmbeddedBroker::start() {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set_log_cb(conf, quiet_log);
  handle_ = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (!handle_) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("cannot start the embedded broker: ") + errstr);
  }
  mock_ = rd_kafka_mock_cluster_new(handle_, brokers_);
  if (!mock_) {
    stop();
    throw Error("cannot start the embedded broker: librdkafka could not open its listening sockets on 127.0.0.1");
  }
  // Only the bytes bound what a partition keeps: a count of batches would drop small ones early.
  if (rd_kafka_resp_err_t err = rd_kafka_mock_set_retention(mock_, retention_bytes_, -1)) {
    stop();
    throw Error(std::string("cannot set the embedded broker's retention: ") + rd_kafka_err2str(err));
  }
  bootstrap_ = rd_kafka_mock_cluster_bootstraps(mock_);
  answer_without_delay(bootstrap_);
  auto wanted = std::move(topics_);
  topics_.clear();
  for (const auto& topic : wanted) create_topic(topic);
}

void EmbeddedBroker::stop() {
  if (mock_) rd_kafka_mock_cluster_destroy(mock_);
  mock_ = nullptr;
  if (handle_) rd_kafka_destroy(handle_);
  handle_ = nullptr;
}

void EmbeddedBroker::create_topic(const TopicSpec& topic) {
  for (const auto& existing : topics_) {
    if (existing.name == topic.name)
      throw Error("topic " + topic.name + " already exists on the embedded broker (" +
                  counted(existing.partitions, "partition", "partitions") + ")");
  }
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mock_, topic.name.c_str(), topic.partitions, 1);
  if (err) throw Error("cannot create topic " + topic.name + " on the embedded broker: " + rd_kafka_err2str(err));
  topics_.push_back(topic);
}

void EmbeddedBroker::reset() {
  stop();
  start();
}

}  // namespace lakestream
