// Polling the embedded broker's log starts, to report what its retention dropped.
#include "broker/retention_watch.h"

#include <librdkafka/rdkafka.h>

#include "util/byte_size.h"
#include "util/error.h"

namespace lakestream {

RetentionWatch::RetentionWatch(const std::string& bootstrap, const std::vector<TopicSpec>& topics,
                               int64_t retention_bytes)
    : topics_(topics), retention_bytes_(retention_bytes) {
  char errstr[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "allow.auto.create.topics", "false", errstr, sizeof errstr);
  rd_kafka_conf_set(conf, "log_level", "0", errstr, sizeof errstr);
  client_ = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  if (!client_) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("the embedded broker cannot watch its own retention: ") + errstr);
  }
}

RetentionWatch::~RetentionWatch() {
  if (client_) rd_kafka_destroy(client_);
}

std::vector<std::string> RetentionWatch::dropped_since_last() {
  std::vector<std::string> lines;
  for (const auto& topic : topics_) {
    for (int32_t p = 0; p < topic.partitions; p++) {
      int64_t low = 0, high = 0;
      if (rd_kafka_query_watermark_offsets(client_, topic.name.c_str(), p, &low, &high, 2000)) continue;
      int64_t& known = log_start_[{topic.name, p}];
      if (low <= known) continue;
      lines.push_back("retention dropped offsets " + std::to_string(known) + " to " + std::to_string(low - 1) +
                      " of " + topic.name + " partition " + std::to_string(p) +
                      " (each partition keeps about " + format_byte_size(retention_bytes_) +
                      "); a stream that had not read them has lost them. To keep more, start the broker with a "
                      "larger --retention (" + format_byte_size(retention_bytes_ * 4) +
                      ") or give the topic more partitions (--topic " + topic.name + ":" +
                      std::to_string(topic.partitions * 4) + ")");
      known = low;
    }
  }
  return lines;
}

}  // namespace lakestream
