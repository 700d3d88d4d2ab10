#include "bench/kafka_limit.h"

#include <librdkafka/rdkafka.h>

#include <map>
#include <vector>

#include "util/error.h"

namespace lakestream::bench {

int64_t consume_to_end(const std::string& bootstrap, const std::string& topic) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  // The best a plain consumer can do here, so that the ratio is not flattered: an empty fetch
  // answers after 10 ms instead of 500, and the prefetch queue never fills (librdkafka 2.0
  // pauses a partition for a second when it does). The ingest stream's reader sets the same.
  for (auto [name, value] : {std::pair{"bootstrap.servers", bootstrap.c_str()}, {"group.id", "lakestream-bench"},
                             {"enable.partition.eof", "true"}, {"enable.auto.commit", "false"},
                             {"fetch.wait.max.ms", "10"}, {"queued.min.messages", "10000000"},
                             {"queued.max.messages.kbytes", "2097151"}}) {
    if (rd_kafka_conf_set(conf, name, value, err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw Error(std::string("Kafka-limit consumer: ") + err);
    }
  }
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!consumer) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("Kafka-limit consumer: ") + err);
  }
  struct Closer {
    rd_kafka_t* consumer;
    ~Closer() {
      rd_kafka_consumer_close(consumer);
      rd_kafka_destroy(consumer);
    }
  } closer{consumer};
  rd_kafka_poll_set_consumer(consumer);

  const rd_kafka_metadata_t* metadata = nullptr;
  rd_kafka_topic_t* handle = rd_kafka_topic_new(consumer, topic.c_str(), nullptr);
  rd_kafka_resp_err_t e = rd_kafka_metadata(consumer, 0, handle, &metadata, 10000);
  rd_kafka_topic_destroy(handle);
  if (e || metadata->topic_cnt != 1 || metadata->topics[0].err) {
    if (metadata) rd_kafka_metadata_destroy(metadata);
    throw Error("Kafka-limit consumer: no topic " + topic + " on " + bootstrap);
  }
  std::map<int32_t, int64_t> end;  // partition -> high watermark
  for (int i = 0; i < metadata->topics[0].partition_cnt; i++) {
    int32_t p = metadata->topics[0].partitions[i].id;
    int64_t low = 0, high = 0;
    rd_kafka_query_watermark_offsets(consumer, topic.c_str(), p, &low, &high, 10000);
    if (high > low) end[p] = high;
  }
  rd_kafka_metadata_destroy(metadata);

  rd_kafka_topic_partition_list_t* assignment = rd_kafka_topic_partition_list_new(static_cast<int>(end.size()));
  for (const auto& [p, high] : end) rd_kafka_topic_partition_list_add(assignment, topic.c_str(), p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_assign(consumer, assignment);
  rd_kafka_topic_partition_list_destroy(assignment);

  // Records are taken 1,000 at a time, as the ingest stream's reader takes them.
  int64_t records = 0;
  size_t open = end.size();
  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(consumer);
  std::vector<rd_kafka_message_t*> messages(1000);
  std::string failure;
  while (open > 0 && failure.empty()) {
    ssize_t count = rd_kafka_consume_batch_queue(queue, 10, messages.data(), messages.size());
    for (ssize_t i = 0; i < count; i++) {
      rd_kafka_message_t* m = messages[i];
      if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        auto it = end.find(m->partition);
        if (it != end.end() && m->offset >= it->second) {
          end.erase(it);
          open--;
        }
      } else if (m->err) {
        if (failure.empty()) failure = rd_kafka_message_errstr(m);
      } else {
        records++;
      }
      rd_kafka_message_destroy(m);
    }
  }
  rd_kafka_queue_destroy(queue);
  if (!failure.empty()) throw Error("Kafka-limit consumer: reading topic " + topic + " failed: " + failure);
  return records;
}

}  // namespace lakestream::bench
