// The benchmark's input: realistic order events (about 130 bytes of JSON each) with the
// troubles a real feed has (status updates, events sent twice, late events), produced to the
// embedded broker compressed with zstd, as a real feed would be.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream::bench {

// The shape of the generated feed, fixed so that runs compare.
struct OrderFeed {
  int64_t events = 2'000'000;
  int64_t first_order_id = 10'000'001;  // above the seeded silver tables' keys (1..10M)
  double status_update_share = 0.01;    // an update of an earlier order (a newer status)
  double duplicate_share = 0.02;        // the previous event sent again, byte for byte
  double late_share = 0.05;             // an event time 3 hours behind the feed (behind a 1-hour watermark)
};

// Event i of the feed as one JSON line (without newline). Deterministic in i.
std::string order_event(const OrderFeed& feed, int64_t i);

// Sends the feed's events to `topic` on `bootstrap` (keyed by order_id, zstd, idempotent) and
// waits for every delivery; returns the bytes of JSON sent (see produce_feed).
int64_t produce_order_feed(const std::string& bootstrap, const std::string& topic, const OrderFeed& feed);

}  // namespace lakestream::bench
