#include "bench/order_events.h"

#include <librdkafka/rdkafka.h>

#include <cstdio>
#include <ctime>

#include "util/error.h"

namespace lakestream::bench {

namespace {

constexpr int64_t kFeedStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr int64_t kEventSpacingMs = 36;               // 100k events an hour of event time
constexpr int64_t kLateByMs = 3 * 3600 * 1000;

// A cheap deterministic hash (splitmix64), so the feed is the same on every run.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unit(uint64_t h) { return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53); }

std::string iso_time(int64_t ms) {
  time_t seconds = static_cast<time_t>(ms / 1000);
  struct tm t;
  gmtime_r(&seconds, &t);
  char text[40];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                t.tm_hour, t.tm_min, t.tm_sec, static_cast<int>(ms % 1000));
  return text;
}

std::string fresh_event(const OrderFeed& feed, int64_t i) {
  uint64_t h = mix(static_cast<uint64_t>(i));
  double roll = unit(h);
  int64_t order_id = feed.first_order_id + i;
  int64_t time_ms = kFeedStartMs + i * kEventSpacingMs;
  const char* status = "placed";
  if (roll < feed.status_update_share && i > 1000) {
    // A recent order moves on: one of this feed's, or one of the million before it (in silver already).
    order_id = (h >> 16) % 2 ? feed.first_order_id + i - 1 - static_cast<int64_t>(h % 1000)
                             : feed.first_order_id - 1 - static_cast<int64_t>(h % 1'000'000);
    status = (h >> 20) % 2 ? "shipped" : "cancelled";
  } else if (roll < feed.status_update_share + feed.late_share) {
    time_ms -= kLateByMs;  // a phone that was offline
  }
  char text[256];
  std::snprintf(text, sizeof text,
                "{\"order_id\":%lld,\"customer_id\":\"c-%06llu\",\"status\":\"%s\",\"amount\":%llu.%02llu,"
                "\"currency\":\"EUR\",\"channel\":\"%s\",\"event_time\":\"%s\"}",
                static_cast<long long>(order_id), static_cast<unsigned long long>((h >> 8) % 500000), status,
                static_cast<unsigned long long>((h >> 28) % 300 + 5), static_cast<unsigned long long>((h >> 40) % 100),
                (h >> 50) % 3 ? "web" : "app", iso_time(time_ms).c_str());
  return text;
}

}  // namespace

std::string order_event(const OrderFeed& feed, int64_t i) {
  // A duplicate repeats the event before it (a producer retry after a timeout).
  if (i > 0 && unit(mix(static_cast<uint64_t>(i) ^ 0x5bd1e995ULL)) < feed.duplicate_share) return fresh_event(feed, i - 1);
  return fresh_event(feed, i);
}

int64_t produce_order_feed(const std::string& bootstrap, const std::string& topic, const OrderFeed& feed) {
  char err[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  struct Delivery {
    int64_t failed = 0;
    std::string first_error;
  } delivery;
  auto set = [&](const char* name, const std::string& value) {
    if (rd_kafka_conf_set(conf, name, value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
      rd_kafka_conf_destroy(conf);
      throw Error(std::string("benchmark producer: ") + err);
    }
  };
  set("bootstrap.servers", bootstrap);
  set("enable.idempotence", "true");
  set("compression.type", "zstd");
  // librdkafka's own batching (linger.ms 5, batches up to 1 MB): what a producer does unless
  // tuned.
  set("queue.buffering.max.messages", "1000000");
  rd_kafka_conf_set_opaque(conf, &delivery);
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
    auto* d = static_cast<Delivery*>(opaque);
    if (m->err && d->failed++ == 0) d->first_error = rd_kafka_err2str(m->err);
  });
  rd_kafka_t* producer = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!producer) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("benchmark producer: ") + err);
  }
  int64_t bytes = 0;
  for (int64_t i = 0; i < feed.events; i++) {
    std::string value = order_event(feed, i);
    std::string key = value.substr(12, value.find(',') - 12);  // the order_id digits
    bytes += static_cast<int64_t>(value.size());
    rd_kafka_resp_err_t e;
    while ((e = rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                  RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(value.data(), value.size()),
                                  RD_KAFKA_V_END)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(producer, 10);
    if (e) {
      rd_kafka_destroy(producer);
      throw Error("benchmark producer: cannot send to topic " + topic + ": " + rd_kafka_err2str(e));
    }
    rd_kafka_poll(producer, 0);
  }
  rd_kafka_flush(producer, 120000);
  bool unsent = rd_kafka_outq_len(producer) > 0;
  rd_kafka_destroy(producer);
  if (unsent || delivery.failed > 0)
    throw Error("benchmark producer: " + std::to_string(delivery.failed) + " events were not delivered to topic " + topic +
                (delivery.first_error.empty() ? "" : " (" + delivery.first_error + ")"));
  return bytes;
}

}  // namespace lakestream::bench
