// The time at the start of a log line (the broker's and continuous mode's), as services write it.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream {

// Now in UTC, ISO-8601 to the second: "2026-11-30T10:41:07Z".
std::string log_time_now();

// A moment in milliseconds since the epoch, in UTC to the millisecond: "2026-11-30T10:41:07.250Z".
std::string utc_time_ms(int64_t epoch_ms);

// Now, in milliseconds since the epoch: the clock of the Delta log's times (deletion timestamps,
// modification times).
int64_t now_epoch_ms();

}  // namespace lakestream
