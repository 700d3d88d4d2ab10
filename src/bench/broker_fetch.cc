// The embedded broker's cost at the tail, short log against long log: one broker child, one topic
// of two partitions (0 short, 1 long), rounds taking turns so that both see the same machine.
#include "bench/broker_fetch.h"

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "bench/measured_child.h"
#include "broker/broker_address.h"
#include "util/error.h"
#include "util/files.h"
#include "util/percentile.h"

namespace lakestream::bench {

namespace {

const char* const kTopic = "tail";
constexpr int32_t kShortPartition = 0;
constexpr int32_t kLongPartition = 1;

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// The CPU a process has used, in ms: the sum over its threads of their time on a CPU
// (/proc/PID/task/TID/schedstat, in ns), finer than the 10 ms ticks of /proc/PID/stat.
double process_cpu_ms(int pid) {
  std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  double total_ns = 0;
  for (const auto& tid : list_dir(tasks)) {
    std::ifstream in(tasks + "/" + tid + "/schedstat");
    double on_cpu_ns = 0;
    if (in >> on_cpu_ns) total_ns += on_cpu_ns;
  }
  if (total_ns == 0) throw Error("cannot read the broker's CPU time from " + tasks + "/*/schedstat");
  return total_ns / 1e6;
}

rd_kafka_t* new_client(rd_kafka_type_t type, const std::vector<std::pair<std::string, std::string>>& settings) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  for (const auto& [name, value] : settings) {
    if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw Error("broker bench: " + name + "=" + value + ": " + err);
    }
  }
  rd_kafka_t* client = rd_kafka_new(type, conf, err, sizeof err);
  if (!client) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("broker bench: cannot make a Kafka client: ") + err);
  }
  return client;
}

struct ClientDeleter {
  void operator()(rd_kafka_t* client) const {
    if (rd_kafka_type(client) == RD_KAFKA_CONSUMER) rd_kafka_consumer_close(client);
    rd_kafka_destroy(client);
  }
};
using Client = std::unique_ptr<rd_kafka_t, ClientDeleter>;

// Sends `count` records to `partition`, each value the send time (steady ns) padded to 32 bytes,
// and waits until all are acknowledged.
void produce(rd_kafka_t* producer, int32_t partition, int64_t count) {
  char value[32] = {};
  for (int64_t i = 0; i < count; i++) {
    int64_t sent = now_ns();
    std::memcpy(value, &sent, sizeof sent);
    for (;;) {
      rd_kafka_resp_err_t err =
          rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(kTopic), RD_KAFKA_V_PARTITION(partition),
                            RD_KAFKA_V_VALUE(value, sizeof value), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                            RD_KAFKA_V_END);
      if (!err) break;
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL)
        throw Error(std::string("broker bench: cannot produce: ") + rd_kafka_err2str(err));
      rd_kafka_poll(producer, 1);
    }
  }
  if (rd_kafka_resp_err_t err = rd_kafka_flush(producer, 600'000))
    throw Error(std::string("broker bench: records not acknowledged: ") + rd_kafka_err2str(err));
}

// A consumer of one partition, assigned at its current end: it waits at the tail.
Client tail_consumer(const std::string& bootstrap, int32_t partition) {
  // As the ingest stream's reader: an empty fetch is answered after 10 ms (the mock waits the
  // whole fetch.wait.max.ms when it has nothing).
  Client consumer(new_client(RD_KAFKA_CONSUMER, {{"bootstrap.servers", bootstrap},
                                                 {"group.id", "lakestream-broker-bench"},
                                                 {"enable.auto.commit", "false"},
                                                 {"fetch.wait.max.ms", "10"}}));
  rd_kafka_poll_set_consumer(consumer.get());
  rd_kafka_topic_partition_list_t* assignment = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(assignment, kTopic, partition)->offset = RD_KAFKA_OFFSET_END;
  rd_kafka_resp_err_t err = rd_kafka_assign(consumer.get(), assignment);
  rd_kafka_topic_partition_list_destroy(assignment);
  if (err) throw Error(std::string("broker bench: cannot assign the consumer: ") + rd_kafka_err2str(err));
  return consumer;
}

// Reads `count` records, adding each one's send-to-read latency (ms) to `latencies`.
void read_at_tail(rd_kafka_t* consumer, int64_t count, std::vector<double>& latencies) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(2);
  for (int64_t read = 0; read < count;) {
    if (std::chrono::steady_clock::now() > deadline)
      throw Error("broker bench: the consumer read " + std::to_string(read) + " of " + std::to_string(count) +
                  " records in 2 minutes");
    rd_kafka_message_t* message = rd_kafka_consumer_poll(consumer, 100);
    if (!message) continue;
    if (message->err) {
      std::string what = rd_kafka_message_errstr(message);
      rd_kafka_message_destroy(message);
      throw Error("broker bench: the consumer failed: " + what);
    }
    int64_t sent = 0;
    if (message->len >= sizeof sent) std::memcpy(&sent, message->payload, sizeof sent);
    latencies.push_back((now_ns() - sent) / 1e6);
    rd_kafka_message_destroy(message);
    read++;
  }
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

double percentile(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return at_quantile(values, p);
}

}  // namespace

BrokerFetchResult measure_broker_fetch(const BrokerFetchOptions& options, std::ostream& progress) {
  BrokerFetchResult result;
  result.options = options;
  std::string dir = absolute_path(options.dir);
  remove_all(dir);
  make_dirs(dir);
  std::string address_file = join_path(dir, "broker.json");
  // Room for both logs: about 50 bytes a record in batches of 100.
  int64_t retention_mib = std::max<int64_t>(64, (options.long_records * 100) >> 20);
  auto broker = start_measured(own_binary(),
                               {"broker", "--address-file", address_file, "--topic", std::string(kTopic) + ":2",
                                "--retention", std::to_string(retention_mib) + "MiB"},
                               dir);
  struct Stopper {
    std::shared_ptr<StartedChild> child;
    ~Stopper() {
      try {
        stop_measured(child);
      } catch (...) {
      }
    }
  } stopper{broker};
  std::optional<BrokerAddress> address;
  for (int i = 0; i < 500 && !(address = read_broker_address(address_file)); i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (!address) throw Error("broker bench: the broker wrote no address to " + address_file + " within 10 s");

  Client producer(new_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", address->bootstrap},
                                                 {"batch.num.messages", std::to_string(options.records_per_batch)},
                                                 {"linger.ms", "5"},
                                                 {"queue.buffering.max.messages", "1000000"},
                                                 {"acks", "1"}}));
  auto fill_start = std::chrono::steady_clock::now();
  progress << "broker bench: filling partition 0 with " << options.short_records << " records and partition 1 with "
           << options.long_records << " (batches of " << options.records_per_batch << ")" << std::endl;
  produce(producer.get(), kShortPartition, options.short_records);
  produce(producer.get(), kLongPartition, options.long_records);
  result.fill_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fill_start).count();
  progress << "broker bench: filled in " << static_cast<int>(result.fill_seconds) << " s" << std::endl;

  Client consumers[2] = {tail_consumer(address->bootstrap, kShortPartition),
                         tail_consumer(address->bootstrap, kLongPartition)};
  // Until each consumer has its position at the end: a record sent before would be missed.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  TailFetchCost* costs[2] = {&result.short_log, &result.long_log};
  result.short_log.log_records = options.short_records;
  result.long_log.log_records = options.long_records;
  std::vector<double> cpu[2], round_ms[2], latencies[2];
  for (int round = 0; round < options.rounds; round++) {
    for (int side : {0, 1}) {
      int32_t partition = side == 0 ? kShortPartition : kLongPartition;
      double cpu_before = process_cpu_ms(address->pid);
      auto start = std::chrono::steady_clock::now();
      std::thread sender([&] { produce(producer.get(), partition, options.round_records); });
      try {
        read_at_tail(consumers[side].get(), options.round_records, latencies[side]);
      } catch (...) {
        sender.join();
        throw;
      }
      sender.join();
      round_ms[side].push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
      cpu[side].push_back(process_cpu_ms(address->pid) - cpu_before);
    }
    progress << "broker bench: round " << round + 1 << " of " << options.rounds << ": broker CPU "
             << static_cast<int>(cpu[0].back()) << " ms (short log), " << static_cast<int>(cpu[1].back())
             << " ms (long log)" << std::endl;
  }
  for (int side : {0, 1}) {
    costs[side]->broker_cpu_ms = median(cpu[side]);
    costs[side]->round_ms = median(round_ms[side]);
    costs[side]->latency_p50_ms = percentile(latencies[side], 0.5);
    costs[side]->latency_p99_ms = percentile(latencies[side], 0.99);
  }
  return result;
}

std::string format_broker_fetch(const BrokerFetchResult& result) {
  std::ostringstream out;
  out.setf(std::ios::fixed);
  out.precision(1);
  const auto& o = result.options;
  out << "embedded broker at the tail: " << o.rounds << " rounds of " << o.round_records
      << " records per partition (batches of " << o.records_per_batch << "), medians per round\n";
  out << "log records   broker CPU ms   round ms   latency p50 ms   p99 ms\n";
  for (const TailFetchCost* cost : {&result.short_log, &result.long_log}) {
    std::string records = std::to_string(cost->log_records);
    out << records << std::string(records.size() < 14 ? 14 - records.size() : 1, ' ') << cost->broker_cpu_ms
        << "\t\t" << cost->round_ms << "\t   " << cost->latency_p50_ms << "\t\t    " << cost->latency_p99_ms << "\n";
  }
  out.precision(2);
  out << "long / short: broker CPU " << result.cpu_ratio() << "x, latency p50 " << result.latency_ratio()
      << "x (target <= 1.5x: " << (result.within_target() ? "met" : "missed") << ")\n";
  return out.str();
}

}  // namespace lakestream::bench
