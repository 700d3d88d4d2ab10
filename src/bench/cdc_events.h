// The cdc workload's input: a customers table's change events as Debezium's Postgres connector
// writes them with the JsonConverter (bare envelopes: before, after, source with ts_ms and lsn,
// op, ts_ms), keyed by the row's id as Debezium keys them. Over `keys` customers: about 15%
// creates, 70% updates and 15% deletes (a delete's before holds the key only); the lsn grows
// with the event number.
#pragma once

#include <cstdint>

#include "bench/feed_producer.h"

namespace lakestream::bench {

struct CdcFeed {
  int64_t events = 2'000'000;
  int64_t keys = 100'000;
};

// Event i of the feed with its key (the customer id). Deterministic in i.
KeyedEvent cdc_event(const CdcFeed& feed, int64_t i);

}  // namespace lakestream::bench
