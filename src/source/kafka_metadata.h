// Asking the brokers about one topic, for both the reader and the producer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct rd_kafka_s;

namespace lakestream {

// The partition ids of `topic`, sorted, as `client`'s brokers (`bootstrap`, for messages) know
// them. Error when the topic does not exist (saying how to create it) or the brokers cannot be
// asked. Note: with allow.auto.create.topics=true the embedded broker creates an unknown topic
// (4 partitions) instead of answering that it does not exist.
std::vector<int32_t> topic_partitions(rd_kafka_s* client, const std::string& topic, const std::string& bootstrap);

}  // namespace lakestream
