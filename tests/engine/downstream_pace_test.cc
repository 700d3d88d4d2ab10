// When a downstream stream with a target latency starts its batch (engine/downstream_pace.h), and
// the commit times of the bronze versions it waits for (engine/committed_versions.h).
#include "engine/downstream_pace.h"

#include <gtest/gtest.h>

#include <thread>

#include "engine/committed_versions.h"

namespace lakestream {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

TEST(DownstreamPace, LetsTheOldestUnreadVersionWaitTheTargetLessTwiceTheLongestRecentBatch) {
  DownstreamPace pace(std::chrono::microseconds(400'000));
  Clock::time_point committed = Clock::now();
  // No batch yet: a tenth of the target is kept back.
  EXPECT_EQ(pace.start_at(committed), committed + milliseconds(360));
  pace.ran(milliseconds(50));
  pace.ran(milliseconds(30));
  EXPECT_EQ(pace.margin(), milliseconds(100));
  EXPECT_EQ(pace.start_at(committed), committed + milliseconds(300));
}

TEST(DownstreamPace, ABatchThatTakesHalfTheTargetOrMoreStartsAtOnce) {
  DownstreamPace pace(std::chrono::microseconds(400'000));
  pace.ran(milliseconds(250));
  Clock::time_point committed = Clock::now();
  EXPECT_EQ(pace.start_at(committed), committed);
}

TEST(DownstreamPace, OnlyTheLastRunsCount) {
  DownstreamPace pace(std::chrono::microseconds(1'000'000));
  pace.ran(milliseconds(300));  // a slow batch (a backlog) ...
  for (size_t i = 0; i < DownstreamPace::kRunsRemembered - 1; i++) pace.ran(milliseconds(20));
  EXPECT_EQ(pace.margin(), milliseconds(600));
  pace.ran(milliseconds(20));  // ... forgotten after kRunsRemembered more
  EXPECT_EQ(pace.margin(), milliseconds(40));
}

TEST(CommittedVersions, KnowsWhenEachVersionWasAdded) {
  CommittedVersions versions;
  Clock::time_point before = Clock::now();
  versions.add();
  std::this_thread::sleep_for(milliseconds(20));
  Clock::time_point between = Clock::now();
  versions.add();
  EXPECT_EQ(versions.count(), 2);
  EXPECT_GE(versions.added_at(1), before);
  EXPECT_LE(versions.added_at(1), between);
  EXPECT_GE(versions.added_at(2), between);
  // Not added yet: now (no wait to let it have).
  EXPECT_GE(versions.added_at(3), versions.added_at(2));
}

TEST(CommittedVersions, AVersionOlderThanTheRememberedReadsAsTheOldestRemembered) {
  CommittedVersions versions;
  versions.add();
  std::this_thread::sleep_for(milliseconds(5));
  Clock::time_point after_the_first = Clock::now();
  for (size_t i = 0; i < CommittedVersions::kRemembered; i++) versions.add();
  // The first is forgotten: its time reads as the second's, later than the truth.
  EXPECT_EQ(versions.added_at(1), versions.added_at(2));
  EXPECT_GE(versions.added_at(1), after_the_first);
}

TEST(CommittedVersions, AWaiterWakesWhenAVersionIsAdded) {
  CommittedVersions versions;
  std::thread adder([&] {
    std::this_thread::sleep_for(milliseconds(50));
    versions.add();
  });
  Clock::time_point started = Clock::now();
  EXPECT_FALSE(versions.wait_past(0, 10));
  EXPECT_LT(Clock::now() - started, std::chrono::seconds(5));
  EXPECT_EQ(versions.count(), 1);
  adder.join();
}

}  // namespace
}  // namespace lakestream
