#include "engine/downstream_pace.h"

#include <algorithm>

namespace lakestream {

void DownstreamPace::ran(std::chrono::steady_clock::duration took) {
  recent_.push_back(took);
  if (recent_.size() > kRunsRemembered) recent_.pop_front();
}

std::chrono::steady_clock::duration DownstreamPace::margin() const {
  // Before any run: a tenth of the target, so that the first batches neither start at once nor
  // run over.
  if (recent_.empty()) return target_ / 10;
  std::chrono::steady_clock::duration longest = *std::max_element(recent_.begin(), recent_.end());
  return std::min<std::chrono::steady_clock::duration>(2 * longest, target_);
}

std::chrono::steady_clock::time_point DownstreamPace::start_at(std::chrono::steady_clock::time_point first_unread) const {
  return first_unread + (std::chrono::duration_cast<std::chrono::steady_clock::duration>(target_) - margin());
}

}  // namespace lakestream
