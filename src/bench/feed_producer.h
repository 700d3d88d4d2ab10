// What the benchmark's feeds share: a deterministic hash to draw from, the timestamp forms real
// producers write, and the producer that sends a feed to the embedded broker, compressed with
// zstd, as a real feed would be.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace lakestream::bench {

// A cheap deterministic hash (splitmix64), so a feed is the same on every run.
uint64_t mix(uint64_t x);
// A hash as a number in [0, 1).
double unit(uint64_t h);

// A uuid4 as Python's str(uuid.uuid4()) writes it, made of the bits of a and b.
std::string uuid4(uint64_t a, uint64_t b);

enum class TimeForm {
  ZuluMillis,       // 2026-10-01T00:00:00.050Z
  ZuluSeconds,      // 2026-10-01T00:00:00Z
  PythonIsoformat,  // 2026-10-01T00:00:00.050000+00:00, no fraction at a whole second (datetime.isoformat())
  PlusTwoHours,     // 2026-10-01T02:00:00.050+02:00: the same instant written in another zone
  EpochMillis,      // 1790812800050, a JSON number (Java's System.currentTimeMillis(), JavaScript's Date.now())
};
// Milliseconds since the epoch as `form` writes them in a string (every form but EpochMillis).
std::string iso_time(int64_t ms, TimeForm form);
// Milliseconds since the epoch as the JSON value `form` makes of them: a string, or a number.
std::string json_time(int64_t ms, TimeForm form);

struct KeyedEvent {
  std::string key;
  std::string value;
};

// Sends events 0..count-1 that `event` makes to `topic` on `bootstrap` (zstd, idempotent,
// librdkafka's default batching) and waits for every delivery; returns the bytes of the values
// sent. Error when a delivery fails.
int64_t produce_feed(const std::string& bootstrap, const std::string& topic, int64_t count,
                     const std::function<KeyedEvent(int64_t)>& event);

// Sends events that `event` makes to `topic` at `per_second` for `seconds`, paced against the clock
// (what is due is sent every half millisecond), with librdkafka's default 5 ms linger;
// returns how many were sent. Error when a delivery fails.
int64_t produce_paced(const std::string& bootstrap, const std::string& topic, int64_t per_second, double seconds,
                      const std::function<KeyedEvent(int64_t)>& event);

}  // namespace lakestream::bench
