#include "engine/rate_alert.h"

#include <optional>

#include "engine/progress_record.h"

namespace lakestream {

bool falling_behind(const std::vector<nlohmann::json>& records, int64_t period_us) {
  std::optional<int64_t> newest;
  for (auto it = records.rbegin(); it != records.rend(); ++it) {
    if (is_failure(*it)) continue;
    auto started = parse_iso_timestamp(it->value("timestamp", ""));
    if (!started) continue;
    if (it->value("numInputRows", int64_t{0}) > 0 &&
        !(it->value("processedRowsPerSecond", 0.0) < it->value("inputRowsPerSecond", 0.0)))
      return false;  // the streak is broken by a batch that kept up
    if (!newest) newest = started;
    if (*newest - *started >= period_us) return true;
  }
  return false;
}

}  // namespace lakestream
