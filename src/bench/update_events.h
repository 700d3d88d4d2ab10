// The random-key upsert feed: status updates of orders drawn uniformly from a large table of
// keys (customers, users, orders of months past), so that every batch touches every file of a
// table clustered by key. Copy-on-write rewrites the whole table each batch; merge-on-read
// (deletion vectors) writes the batch and a vector per file.
#pragma once

#include <cstdint>

#include "bench/feed_producer.h"

namespace lakestream::bench {

struct UpdateFeed {
  int64_t keys = 10'000'000;  // order ids 1..keys, the seeded table's
  int64_t per_second = 10'000;  // the event times advance a second per this many updates
};

// Update i of the feed, keyed by its order_id. Deterministic in i.
KeyedEvent update_event(const UpdateFeed& feed, int64_t i);

}  // namespace lakestream::bench
