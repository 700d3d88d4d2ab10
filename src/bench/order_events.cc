#include "bench/order_events.h"

#include <cstdio>
#include <ctime>

#include "bench/feed_producer.h"

namespace lakestream::bench {

namespace {

constexpr int64_t kFeedStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr int64_t kEventSpacingMs = 36;               // 100k events an hour of event time
constexpr int64_t kLateByMs = 3 * 3600 * 1000;

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
                (h >> 50) % 3 ? "web" : "app", iso_time(time_ms, TimeForm::ZuluMillis).c_str());
  return text;
}

}  // namespace

std::string order_event(const OrderFeed& feed, int64_t i) {
  // A duplicate repeats the event before it (a producer retry after a timeout).
  if (i > 0 && unit(mix(static_cast<uint64_t>(i) ^ 0x5bd1e995ULL)) < feed.duplicate_share) return fresh_event(feed, i - 1);
  return fresh_event(feed, i);
}

int64_t produce_order_feed(const std::string& bootstrap, const std::string& topic, const OrderFeed& feed) {
  return produce_feed(bootstrap, topic, feed.events, [&](int64_t i) {
    std::string value = order_event(feed, i);
    std::string key = value.substr(12, value.find(',') - 12);  // the order_id digits
    return KeyedEvent{key, value};
  });
}

}  // namespace lakestream::bench
