#include "bench/feed_producer.h"

#include <librdkafka/rdkafka.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "util/error.h"
#include "util/plural.h"

namespace lakestream::bench {

uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double unit(uint64_t h) { return static_cast<double>(h >> 11) / static_cast<double>(1ULL << 53); }

std::string uuid4(uint64_t a, uint64_t b) {
  a = (a & 0xffffffffffff0fffULL) | 0x0000000000004000ULL;  // version 4
  b = (b & 0x3fffffffffffffffULL) | 0x8000000000000000ULL;  // variant 10
  char text[40];
  std::snprintf(text, sizeof text, "%08llx-%04llx-%04llx-%04llx-%012llx", static_cast<unsigned long long>(a >> 32),
                static_cast<unsigned long long>((a >> 16) & 0xffff), static_cast<unsigned long long>(a & 0xffff),
                static_cast<unsigned long long>(b >> 48), static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return text;
}

std::string iso_time(int64_t ms, TimeForm form) {
  int64_t shown_ms = form == TimeForm::PlusTwoHours ? ms + 2 * 3600 * 1000 : ms;
  time_t seconds = static_cast<time_t>(shown_ms / 1000);
  struct tm t;
  gmtime_r(&seconds, &t);
  int millis = static_cast<int>(shown_ms % 1000);
  char text[48];
  int n = std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday,
                        t.tm_hour, t.tm_min, t.tm_sec);
  switch (form) {
    case TimeForm::ZuluMillis: std::snprintf(text + n, sizeof text - n, ".%03dZ", millis); break;
    case TimeForm::ZuluSeconds: std::snprintf(text + n, sizeof text - n, "Z"); break;
    case TimeForm::PythonIsoformat:
      if (millis) std::snprintf(text + n, sizeof text - n, ".%03d000+00:00", millis);
      else std::snprintf(text + n, sizeof text - n, "+00:00");
      break;
    case TimeForm::PlusTwoHours: std::snprintf(text + n, sizeof text - n, ".%03d+02:00", millis); break;
    case TimeForm::EpochMillis: throw Error("internal: epoch milliseconds are a number, not a string");
  }
  return text;
}

std::string json_time(int64_t ms, TimeForm form) {
  if (form == TimeForm::EpochMillis) return std::to_string(ms);
  return "\"" + iso_time(ms, form) + "\"";
}

namespace {

// Sends events 0, 1, ... while `due(i)` says event i is to be sent (-1: stop), waiting while it
// says 0; returns how many were sent.
int64_t send_events(const std::string& bootstrap, const std::string& topic, const std::function<KeyedEvent(int64_t)>& event,
                    const std::function<int(int64_t)>& due, int64_t* bytes_out) {
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
  int64_t i = 0;
  for (;; i++) {
    int go;
    while ((go = due(i)) == 0) {
      rd_kafka_poll(producer, 0);
      std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    if (go < 0) break;
    KeyedEvent e = event(i);
    bytes += static_cast<int64_t>(e.value.size());
    rd_kafka_resp_err_t rc;
    while ((rc = rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
                                   RD_KAFKA_V_KEY(e.key.data(), e.key.size()),
                                   RD_KAFKA_V_VALUE(e.value.data(), e.value.size()),
                                   RD_KAFKA_V_END)) == RD_KAFKA_RESP_ERR__QUEUE_FULL)
      rd_kafka_poll(producer, 10);
    if (rc) {
      rd_kafka_destroy(producer);
      throw Error("benchmark producer: cannot send to topic " + topic + ": " + rd_kafka_err2str(rc));
    }
    rd_kafka_poll(producer, 0);
  }
  rd_kafka_flush(producer, 120000);
  bool unsent = rd_kafka_outq_len(producer) > 0;
  rd_kafka_destroy(producer);
  if (unsent || delivery.failed > 0)
    throw Error("benchmark producer: " + counted(delivery.failed, "event was", "events were") + " not delivered to topic " + topic +
                (delivery.first_error.empty() ? "" : " (" + delivery.first_error + ")"));
  if (bytes_out) *bytes_out = bytes;
  return i;
}

}  // namespace

int64_t produce_feed(const std::string& bootstrap, const std::string& topic, int64_t count,
                     const std::function<KeyedEvent(int64_t)>& event) {
  int64_t bytes = 0;
  send_events(bootstrap, topic, event, [&](int64_t i) { return i < count ? 1 : -1; }, &bytes);
  return bytes;
}

int64_t produce_paced(const std::string& bootstrap, const std::string& topic, int64_t per_second, double seconds,
                      const std::function<KeyedEvent(int64_t)>& event) {
  auto start = std::chrono::steady_clock::now();
  int64_t total = static_cast<int64_t>(static_cast<double>(per_second) * seconds);
  return send_events(bootstrap, topic, event, [&](int64_t i) {
    if (i >= total) return -1;
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return static_cast<double>(i) < elapsed * static_cast<double>(per_second) ? 1 : 0;
  }, nullptr);
}

}  // namespace lakestream::bench
