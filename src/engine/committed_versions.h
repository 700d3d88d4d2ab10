// Bronze versions committed by this process's ingest stage, counted with when each was committed,
// so that a downstream stage wakes as soon as there is one to read instead of polling the log with
// a backoff, and knows how long the oldest it has not read yet has waited (downstream_pace.h).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>

namespace lakestream {

class CommittedVersions {
 public:
  // One more version, committed now.
  void add();
  // How many were added so far.
  int64_t count();
  // When the `n`th version (counting from 1) was added; for one older than the last
  // kRemembered, the oldest remembered (later than the truth: its wait reads shorter).
  std::chrono::steady_clock::time_point added_at(int64_t n);
  // Waits until the count differs from `seen`, `seconds` pass, or a stop is requested; true on a stop.
  bool wait_past(int64_t seen, double seconds);

  // How many commit times are kept: a downstream stage asks for the first version after the last
  // count it saw, never more than a run's worth of versions back.
  static constexpr size_t kRemembered = 4096;

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int64_t count_ = 0;
  std::deque<std::chrono::steady_clock::time_point> added_at_;  // of versions count_ - size() + 1 .. count_
};

}  // namespace lakestream
