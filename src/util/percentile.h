// The quantiles the reports quote (p50, p99): nearest rank over sorted values, the way the bench,
// the broker bench and status read them, so that their figures compare.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace lakestream {

// The value at quantile `q` (0 to 1) of `sorted` (ascending), by nearest rank; T{} when empty.
template <typename T>
T at_quantile(const std::vector<T>& sorted, double q) {
  if (sorted.empty()) return T{};
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(q * static_cast<double>(sorted.size())))];
}

}  // namespace lakestream
