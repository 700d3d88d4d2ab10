// Asking the brokers about one topic, for both the reader and the producer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

struct rd_kafka_s;

namespace lakestream {

// The partition ids of `topic`, sorted, as `client`'s brokers (`bootstrap`, for messages) know
// them. Error when the topic does not exist (saying how to create it: for an embedded broker, the
// command with its name, from `bootstrap_setting` as the pipeline file has it) or the brokers
// cannot be asked. Asks for every topic's metadata, so that no broker creates a mistyped topic on
// the way.
std::vector<int32_t> topic_partitions(rd_kafka_s* client, const std::string& topic, const std::string& bootstrap,
                                      const std::string& bootstrap_setting);

}  // namespace lakestream
