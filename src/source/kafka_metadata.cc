// Topic metadata requests with errors that say which topic, which brokers, and what to do.
#include "source/kafka_metadata.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <optional>

#include "broker/embedded_broker.h"
#include "util/error.h"

namespace lakestream {
namespace {

// A running embedded broker gains a topic without a restart (which would lose its events); it is
// the one the pipeline file names, so the command names it too.
std::string how_to_create(const std::string& topic, const std::string& bootstrap_setting) {
  std::optional<std::string> name;
  try {
    name = embedded_broker_name(bootstrap_setting);
  } catch (const Error&) {
    // Not a name the embedded broker takes: then these are real brokers.
  }
  if (!name) return "create it";
  return "add it to the running embedded broker with `lakestream broker add-topic " + topic + ":3" +
         (name->empty() ? "" : " --name " + *name) + "`";
}

}  // namespace

std::vector<int32_t> topic_partitions(rd_kafka_t* client, const std::string& topic, const std::string& bootstrap,
                                      const std::string& bootstrap_setting) {
  // All topics, never this one by name: brokers (the embedded one among them, whatever the client
  // says) may create a topic asked about by name, so a mistyped topic would become a new empty one.
  const rd_kafka_metadata_t* metadata = nullptr;
  rd_kafka_resp_err_t err = rd_kafka_metadata(client, 1, nullptr, &metadata, 10000);
  if (err)
    throw Error("cannot get the partitions of topic " + topic + " from brokers " + bootstrap + ": " +
                rd_kafka_err2str(err) + "; is Kafka running there?");
  std::vector<int32_t> ids;
  rd_kafka_resp_err_t topic_err = RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART;
  for (int i = 0; i < metadata->topic_cnt; i++) {
    const auto& t = metadata->topics[i];
    if (topic != t.topic) continue;
    topic_err = t.err;
    for (int p = 0; p < t.partition_cnt; p++) ids.push_back(t.partitions[p].id);
  }
  rd_kafka_metadata_destroy(metadata);
  if (topic_err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || (topic_err == 0 && ids.empty()))
    throw Error("topic " + topic + " does not exist on brokers " + bootstrap + ": " + how_to_create(topic, bootstrap_setting) +
                ", or fix the topic name");
  if (topic_err)
    throw Error("cannot use topic " + topic + " on brokers " + bootstrap + ": " + rd_kafka_err2str(topic_err));
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace lakestream
