// The wide workload's input, in the shape of an analytics tracker's events: about 40 members of
// mixed types (uuids, long strings such as user agents and URLs, ints, bigints, doubles,
// booleans, a decimal, two timestamps, nulls), and nested objects and arrays (the device, the
// cart's items, tags, the tracker's context) that the schema does not declare; 1 to 2 KB each.
// Keyed by user_id (10,000 users); event times in every form the clickstream uses, about 5% late
// by 30 to 180 s, about 2% sent twice byte for byte.
#pragma once

#include <cstdint>
#include <string>

#include "bench/feed_producer.h"

namespace lakestream::bench {

struct WideFeed {
  int64_t events = 2'000'000;
  int64_t spacing_ms = 5;
  double late_share = 0.05;
  double duplicate_share = 0.02;
};

// Event i of the feed with its key (user_id). Deterministic in i.
KeyedEvent wide_event(const WideFeed& feed, int64_t i);

// The schema of the members the wide pipeline keeps, as `[sources.X.schema]` lines.
std::string wide_schema();

}  // namespace lakestream::bench
