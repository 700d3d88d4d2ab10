// The peer of `lakestream run` with nothing new: a plain librdkafka client that only asks for the
// watermarks of every partition of the given topics, what a run must learn at the least to know
// that nothing is new. A program of its own, linked with librdkafka alone, so that its start-up
// is a plain client's. Prints the sum of the high watermarks.
//
// Usage: lakestream-watermark-peer BOOTSTRAP TOPIC...
#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <cstdlib>

namespace {

[[noreturn]] void fail(const char* what, const char* detail) {
  std::fprintf(stderr, "lakestream-watermark-peer: %s: %s\n", what, detail);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) fail("usage", "lakestream-watermark-peer BOOTSTRAP TOPIC...");
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "bootstrap.servers", argv[1], err, sizeof err) != RD_KAFKA_CONF_OK) fail("bootstrap", err);
  rd_kafka_t* client = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!client) fail("client", err);
  long long sum = 0;
  for (int t = 2; t < argc; t++) {
    const rd_kafka_metadata_t* metadata = nullptr;
    rd_kafka_topic_t* handle = rd_kafka_topic_new(client, argv[t], nullptr);
    rd_kafka_resp_err_t e = rd_kafka_metadata(client, 0, handle, &metadata, 10000);
    rd_kafka_topic_destroy(handle);
    if (e || metadata->topic_cnt != 1 || metadata->topics[0].err) fail("no such topic", argv[t]);
    for (int i = 0; i < metadata->topics[0].partition_cnt; i++) {
      int64_t low = 0, high = 0;
      e = rd_kafka_query_watermark_offsets(client, argv[t], metadata->topics[0].partitions[i].id, &low, &high, 10000);
      if (e) fail("watermarks", rd_kafka_err2str(e));
      sum += high;
    }
    rd_kafka_metadata_destroy(metadata);
  }
  rd_kafka_destroy(client);
  std::printf("%lld\n", sum);
  return 0;
}
