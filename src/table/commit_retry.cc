#include "table/commit_retry.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

namespace lakestream::delta {

void pause_before_commit_attempt(int attempt) {
  thread_local std::mt19937 random{std::random_device{}()};
  const int64_t ceiling_us = std::min<int64_t>(100'000, int64_t{1000} << std::min(attempt - 1, 7));
  std::uniform_int_distribution<int64_t> pause(0, ceiling_us - 1);
  std::this_thread::sleep_for(std::chrono::microseconds(pause(random)));
}

}  // namespace lakestream::delta
