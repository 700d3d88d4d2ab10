// Calendar arithmetic without a time-zone library: days since 1970-01-01 of a proleptic
// Gregorian date, for the parsers of event times and the stats of written files.
#pragma once

#include <cstdint>

namespace lakestream {

// Days since 1970-01-01 of year `y`, month `m` (1-12), day `d` (Howard Hinnant's days_from_civil).
inline int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

}  // namespace lakestream
