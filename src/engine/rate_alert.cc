#include "engine/rate_alert.h"

#include <optional>

namespace lakestream {

bool falling_behind(const std::vector<BatchProgress>& batches, int64_t period_us) {
  std::optional<int64_t> newest;
  for (auto it = batches.rbegin(); it != batches.rend(); ++it) {
    if (it->failure) continue;
    auto started = it->started_at_us;
    if (!started) continue;
    if (it->input_rows > 0 && !(it->processed_rows_per_second < it->input_rows_per_second))
      return false;  // the streak is broken by a batch that kept up
    if (!newest) newest = started;
    if (*newest - *started >= period_us) return true;
  }
  return false;
}

}  // namespace lakestream
