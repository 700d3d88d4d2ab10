// With `group.id` under [kafka.properties], the ingest stream copies the offsets bronze holds to
// that consumer group, as standard lag tools (kafka-consumer-groups, Burrow) expect to find them.
#include <librdkafka/rdkafka.h>

#include "ops_pipeline.h"

namespace lakestream::testing {
namespace {

// The group's committed offset per partition of `topic`, asked of the broker.
std::map<int32_t, int64_t> committed(const std::string& bootstrap, const std::string& group, const std::string& topic,
                                     int partitions) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "bootstrap.servers", bootstrap.c_str(), err, sizeof err);
  rd_kafka_conf_set(conf, "group.id", group.c_str(), err, sizeof err);
  rd_kafka_t* consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; p++) rd_kafka_topic_partition_list_add(list, topic.c_str(), p);
  std::map<int32_t, int64_t> offsets;
  if (rd_kafka_committed(consumer, list, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR)
    for (int i = 0; i < list->cnt; i++) offsets[list->elems[i].partition] = list->elems[i].offset;
  rd_kafka_topic_partition_list_destroy(list);
  rd_kafka_consumer_close(consumer);
  rd_kafka_destroy(consumer);
  return offsets;
}

TEST(ConsumerGroup, BronzesOffsetsAreCommittedToTheGroupForLagTools) {
  std::string toml = ops_pipeline();
  // The properties table goes right before the next table after [kafka].
  toml.insert(toml.find("\n[", toml.find("[kafka]") + 1) + 1, "[kafka.properties]\n\"group.id\" = \"shop-lakestream\"\n\n");
  PipelineFixture f(toml, {{"orders", 3}});
  f.produce("orders", order_at(1, "0905") + order_at(2, "0950") + order_at(3, "1130") + order_at(4, "1140"), "order_id");
  CommandResult r = f.lakestream("run", {"read_orders"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;

  nlohmann::json status = stream_status(f, "read_orders");
  auto offsets = committed(f.broker().bootstrap(), "shop-lakestream", "orders", 3);
  ASSERT_EQ(offsets.size(), 3u);
  int64_t total = 0;
  for (const auto& p : status["kafkaLag"]) {
    int32_t partition = p["partition"];
    EXPECT_EQ(offsets[partition], p["committed"].get<int64_t>()) << "partition " << partition;
    total += offsets[partition];
  }
  EXPECT_EQ(total, 4);
}

}  // namespace
}  // namespace lakestream::testing
