#include "bench/clickstream_events.h"

#include <cstdio>

namespace lakestream::bench {
namespace {

constexpr int64_t kFeedStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z

// Cents as Python's repr(round(x, 2)) prints them: 12.5, 100.0, 7.08.
std::string python_amount(int64_t cents) {
  char text[32];
  if (cents % 10 == 0) std::snprintf(text, sizeof text, "%lld.%lld", static_cast<long long>(cents / 100),
                                     static_cast<long long>(cents % 100 / 10));
  else std::snprintf(text, sizeof text, "%lld.%02lld", static_cast<long long>(cents / 100), static_cast<long long>(cents % 100));
  return text;
}

KeyedEvent fresh_event(const ClickstreamFeed& feed, int64_t i) {
  uint64_t h = mix(static_cast<uint64_t>(i) * 2 + 1);
  uint64_t g = mix(h);
  int64_t time_ms = kFeedStartMs + i * feed.spacing_ms;
  if (unit(g) < feed.late_share) time_ms -= 30'000 + static_cast<int64_t>(g % 150'000);
  static constexpr TimeForm kForms[] = {TimeForm::PythonIsoformat, TimeForm::PythonIsoformat, TimeForm::ZuluMillis,
                                        TimeForm::ZuluSeconds, TimeForm::PlusTwoHours, TimeForm::EpochMillis};
  TimeForm form = kForms[(h >> 60) % 6];
  if (form == TimeForm::ZuluSeconds) time_ms -= time_ms % 1000;
  char customer[16];
  std::snprintf(customer, sizeof customer, "C-%04llu", static_cast<unsigned long long>((h >> 20) % 200));
  std::string value = "{\"event_id\": \"" + uuid4(h, g) + "\", \"order_id\": \"O-" + std::to_string((g >> 8) % 1'000'000'000) +
                      "\", \"customer_id\": \"" + customer + "\", \"amount\": " +
                      python_amount(500 + static_cast<int64_t>((h >> 32) % 24501)) + ", \"event_time\": " +
                      json_time(time_ms, form) + "}";
  return {customer, value};
}

}  // namespace

KeyedEvent clickstream_event(const ClickstreamFeed& feed, int64_t i) {
  // A duplicate repeats the event before it byte for byte (a producer retry).
  if (i > 0 && unit(mix(static_cast<uint64_t>(i) ^ 0x2545f4914f6cdd1dULL)) < feed.duplicate_share)
    return fresh_event(feed, i - 1);
  return fresh_event(feed, i);
}

}  // namespace lakestream::bench
