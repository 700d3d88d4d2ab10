// The JSON-lines producer: librdkafka's idempotent producer with delivery reports counted.
#include "source/json_producer.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>
#include <optional>
#include <nlohmann/json.hpp>

#include "source/kafka_conf.h"
#include "source/kafka_metadata.h"
#include "util/error.h"

namespace lakestream {

namespace {

struct Deliveries {
  ProduceResult result;
  std::map<int32_t, std::vector<int64_t>> offsets;  // per partition, the offsets delivered to it
};

void count_delivery(rd_kafka_t*, const rd_kafka_message_t* message, void* opaque) {
  auto* deliveries = static_cast<Deliveries*>(opaque);
  if (!message->err) {
    deliveries->result.delivered++;
    deliveries->offsets[message->partition].push_back(message->offset);
    return;
  }
  if (deliveries->result.failed++ == 0) deliveries->result.first_error = rd_kafka_err2str(message->err);
}

// Counts the delivered records that are already below their partition's log start.
void count_gone(rd_kafka_t* producer, const std::string& topic, Deliveries& deliveries) {
  for (const auto& [partition, offsets] : deliveries.offsets) {
    int64_t low = 0, high = 0;
    if (rd_kafka_query_watermark_offsets(producer, topic.c_str(), partition, &low, &high, 10000)) continue;
    int64_t gone = std::count_if(offsets.begin(), offsets.end(), [low = low](int64_t o) { return o < low; });
    if (gone == 0) continue;
    deliveries.result.gone += gone;
    if (!deliveries.result.gone_detail.empty()) deliveries.result.gone_detail += ", ";
    deliveries.result.gone_detail += "partition " + std::to_string(partition) + " now starts at offset " + std::to_string(low);
  }
}

// The key of one line, or nullopt for none.
std::optional<std::string> key_of(const std::string& line, const std::string& key_field) {
  if (key_field.empty()) return std::nullopt;
  auto doc = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  auto found = doc.find(key_field);
  if (found == doc.end() || found->is_null()) return std::nullopt;
  return found->is_string() ? found->get<std::string>() : found->dump();
}

bool blank(const std::string& line) { return line.find_first_not_of(" \t\r") == std::string::npos; }

}  // namespace

ProduceResult produce_json_lines(const KafkaSettings& kafka, const std::string& topic, const std::string& key_field,
                                 std::istream& lines) {
  Deliveries deliveries;
  ProduceResult& result = deliveries.result;
  rd_kafka_conf_t* conf = make_kafka_conf(kafka);
  char errstr[512];
  try {
    set_kafka_property(conf, "enable.idempotence", "true");
    // Lines of up to 10 MB (the ingest stream quarantines values over its own limit, 1 MB by default).
    if (!has_kafka_property(kafka, "message.max.bytes")) set_kafka_property(conf, "message.max.bytes", "10485760");
    // Fail a delivery in 30 s rather than librdkafka's 5 minutes, so a wrong address is told soon.
    if (!has_kafka_property(kafka, "message.timeout.ms")) set_kafka_property(conf, "message.timeout.ms", "30000");
    if (!has_kafka_property(kafka, "linger.ms")) set_kafka_property(conf, "linger.ms", "5");
  } catch (...) {
    rd_kafka_conf_destroy(conf);
    throw;
  }
  std::string bootstrap = kafka_property(conf, "bootstrap.servers");
  rd_kafka_conf_set_dr_msg_cb(conf, count_delivery);
  rd_kafka_conf_set_opaque(conf, &deliveries);
  std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> producer(
      rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr), rd_kafka_destroy);
  if (!producer) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("cannot create a Kafka producer: ") + errstr);
  }

  // Fails now, clearly, when the topic is missing (make_kafka_conf turns auto-creation off).
  topic_partitions(producer.get(), topic, bootstrap, kafka.bootstrap);

  std::string line;
  int64_t line_number = 0;
  while (std::getline(lines, line)) {
    line_number++;
    if (blank(line)) continue;
    auto key = key_of(line, key_field);
    if (!key_field.empty() && !key) result.without_key++;
    const char* key_data = key ? key->data() : nullptr;
    size_t key_size = key ? key->size() : 0;
    // The line null is Kafka's null value: a tombstone, as a change data capture topic has them.
    size_t first = line.find_first_not_of(" \t\r");
    bool tombstone = line.compare(first, line.find_last_not_of(" \t\r") + 1 - first, "null") == 0;
    for (;;) {
      rd_kafka_resp_err_t err = rd_kafka_producev(
          producer.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_VALUE(tombstone ? nullptr : line.data(), tombstone ? 0 : line.size()),
          RD_KAFKA_V_KEY(key_data, key_size), RD_KAFKA_V_END);
      if (!err) break;
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(producer.get(), 50);  // let deliveries drain the queue, then try again
        continue;
      }
      if (err == RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
        throw Error("line " + std::to_string(line_number) + " is " + std::to_string(line.size()) +
                    " bytes, more than the producer's message.max.bytes; raise it in the kafka properties");
      if (err == RD_KAFKA_RESP_ERR__FATAL) break;  // reported below with librdkafka's reason
      throw Error("cannot send line " + std::to_string(line_number) + " to topic " + topic + ": " +
                  rd_kafka_err2str(err));
    }
    rd_kafka_poll(producer.get(), 0);
    if (rd_kafka_fatal_error(producer.get(), errstr, sizeof errstr)) break;
  }
  if (rd_kafka_fatal_error(producer.get(), errstr, sizeof errstr))
    throw Error("the Kafka producer failed for topic " + topic + ": " + errstr);
  // Every message is either delivered or failed by message.timeout.ms, so this ends.
  while (rd_kafka_outq_len(producer.get()) > 0) rd_kafka_flush(producer.get(), 1000);
  count_gone(producer.get(), topic, deliveries);
  return result;
}

}  // namespace lakestream
