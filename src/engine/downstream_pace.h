// When a downstream stream with a target latency starts its next batch. Its input is its source's
// versions, and a version's wait is from its commit to the commit of the batch that reads it
// (inputWaitMs). The stream waits for the first version it has not read, then lets that version
// wait the target less what a batch takes, so that the batch reads every version committed
// meanwhile: at 1,000 events/s and a 400 ms target, a silver batch about every 320 ms holding one
// to three bronze versions, instead of one per version (five a second). What a batch takes is
// twice the longest of its last few runs that found work (a batch that waited longer holds more),
// so the oldest version still commits within the target; when that is the whole target (a
// backlog, a slow store) the batch starts at once.
#pragma once

#include <chrono>
#include <deque>

namespace lakestream {

class DownstreamPace {
 public:
  explicit DownstreamPace(std::chrono::microseconds target) : target_(target) {}

  // A run that found work took `took`.
  void ran(std::chrono::steady_clock::duration took);
  // When to start the batch whose oldest unread version was committed at `first_unread`.
  std::chrono::steady_clock::time_point start_at(std::chrono::steady_clock::time_point first_unread) const;
  // What is kept back from the target for the batch itself.
  std::chrono::steady_clock::duration margin() const;

  static constexpr size_t kRunsRemembered = 16;

 private:
  std::chrono::microseconds target_;
  std::deque<std::chrono::steady_clock::duration> recent_;
};

}  // namespace lakestream
