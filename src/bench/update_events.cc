#include "bench/update_events.h"

#include <cstdio>
#include <string>

namespace lakestream::bench {

namespace {

constexpr int64_t kFeedStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z, after every seeded row

}  // namespace

KeyedEvent update_event(const UpdateFeed& feed, int64_t i) {
  uint64_t h = mix(static_cast<uint64_t>(i) ^ 0x9e3779b97f4a7c15ULL);
  int64_t order_id = 1 + static_cast<int64_t>(h % static_cast<uint64_t>(feed.keys));
  int64_t time_ms = kFeedStartMs + i * 1000 / feed.per_second;
  static const char* const kStatuses[] = {"shipped", "delivered", "returned", "cancelled"};
  char text[256];
  std::snprintf(text, sizeof text,
                "{\"order_id\":%lld,\"customer_id\":\"c-%06llu\",\"status\":\"%s\",\"amount\":%llu.%02llu,"
                "\"event_time\":\"%s\"}",
                static_cast<long long>(order_id), static_cast<unsigned long long>((h >> 8) % 500000),
                kStatuses[(h >> 24) % 4], static_cast<unsigned long long>((h >> 28) % 300 + 5),
                static_cast<unsigned long long>((h >> 40) % 100), iso_time(time_ms, TimeForm::ZuluMillis).c_str());
  return {std::to_string(order_id), text};
}

}  // namespace lakestream::bench
