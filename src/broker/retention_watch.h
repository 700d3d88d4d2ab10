// The embedded broker's retention, made visible: the mock cluster drops a partition's oldest
// records past its retention without a word, so the broker asks itself for each partition's log
// start now and then and says when it moved.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "broker/embedded_broker.h"

struct rd_kafka_s;

namespace lakestream {

class RetentionWatch {
 public:
  // Watches `topics` on the broker at `bootstrap` (a client of its own, over TCP), whose
  // partitions keep `retention_bytes` each (said in the lines).
  RetentionWatch(const std::string& bootstrap, const std::vector<TopicSpec>& topics, int64_t retention_bytes);
  ~RetentionWatch();
  RetentionWatch(const RetentionWatch&) = delete;
  RetentionWatch& operator=(const RetentionWatch&) = delete;

  // One line per partition whose log start moved since the last call: which offsets were dropped.
  std::vector<std::string> dropped_since_last();

 private:
  rd_kafka_s* client_ = nullptr;
  std::vector<TopicSpec> topics_;
  int64_t retention_bytes_;
  std::map<std::pair<std::string, int32_t>, int64_t> log_start_;
};

}  // namespace lakestream
