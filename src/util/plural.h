// Counts in words that agree with them: "1 batch", "2 batches", "1 duplicate dropped".
#pragma once

#include <cstdint>
#include <string>

namespace lakestream {

// "1 batch" or "3 batches": `count`, a space, and `one` or `many`.
inline std::string counted(int64_t count, const std::string& one, const std::string& many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace lakestream
