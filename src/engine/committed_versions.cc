#include "engine/committed_versions.h"

#include <algorithm>

#include "util/stop.h"

namespace lakestream {

void CommittedVersions::add() {
  std::lock_guard<std::mutex> lock(mu_);
  count_++;
  added_at_.push_back(std::chrono::steady_clock::now());
  if (added_at_.size() > kRemembered) added_at_.pop_front();
  cv_.notify_all();
}

int64_t CommittedVersions::count() {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

std::chrono::steady_clock::time_point CommittedVersions::added_at(int64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (added_at_.empty() || n > count_) return std::chrono::steady_clock::now();
  int64_t first = count_ - static_cast<int64_t>(added_at_.size()) + 1;
  return added_at_[static_cast<size_t>(std::max(n, first) - first)];
}

bool CommittedVersions::wait_past(int64_t seen, double seconds) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  std::unique_lock<std::mutex> lock(mu_);
  // In slices: a signal handler cannot notify a condition variable.
  while (count_ == seen && !stop_requested() && std::chrono::steady_clock::now() < until)
    cv_.wait_until(lock, std::min(until, std::chrono::steady_clock::now() + std::chrono::milliseconds(100)));
  return stop_requested();
}

}  // namespace lakestream
