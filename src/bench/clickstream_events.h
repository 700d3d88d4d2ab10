// The clickstream workload's input, in the shape a Python producer of the field sends (the
// hands-on lab's): a uuid4 event_id, "O-<n>" order ids, 200 customers (the Kafka key), double
// amounts as Python prints round(x, 2), event times written the ways real producers write them
// (datetime.isoformat() with +00:00, Z with and without fractions, another zone's offset, epoch
// milliseconds as a JSON number); about
// 5% late by 30 to 180 s, about 2% sent twice byte for byte.
#pragma once

#include <cstdint>
#include <string>

#include "bench/feed_producer.h"

namespace lakestream::bench {

struct ClickstreamFeed {
  int64_t events = 2'000'000;
  int64_t spacing_ms = 5;       // send time between events: 12k a minute of event time
  double late_share = 0.05;
  double duplicate_share = 0.02;
};

// Event i of the feed with its key (customer_id). Deterministic in i.
KeyedEvent clickstream_event(const ClickstreamFeed& feed, int64_t i);

}  // namespace lakestream::bench
