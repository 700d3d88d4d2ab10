// A crash at every named point of the commit protocols, in every stream kind, over a messy stream
// of 100k events: after a rerun every table holds exactly what an uninterrupted run wrote, and
// check says the same lines (late windows by design, never a PROBLEM).
#include <map>
#include <set>

#include "faults/messy_lake.h"

namespace lakestream::testing {
namespace {

TEST(CrashPoints, EveryPointInEveryStreamKindChangesNothing) {
  // One send per (point, stream kind): each send's run crashes at another of them.
  const int combos = static_cast<int>(crash_points().size() * stream_of_each_kind().size());
  MessyStream stream = messy_stream(100000, combos, 7);
  ASSERT_GT(stream.late, 4000);
  ASSERT_GT(stream.sent_twice, 1500);
  ASSERT_GT(stream.bad, 50);
  Reference reference = uninterrupted(stream);
  EXPECT_NE(reference.check.find("\nlate "), std::string::npos) << "the stream should have windows late by design";

  MessyLake lake;
  std::map<std::string, std::set<std::string>> crashed_in;  // point -> the streams it killed
  lake.play(stream, [&](int send) {
    const std::string& point = crash_points()[send % crash_points().size()];
    const std::string& target = stream_of_each_kind()[send / crash_points().size()];
    if (crash_in(lake, point, target)) crashed_in[point].insert(target);
  });
  expect_same_as(reference, lake);

  // Each point killed a run in every stream kind that passes it.
  EXPECT_EQ(crashed_in, streams_each_point_kills());
}

// The long variant: a fresh lake per point and stream kind, crashed after every send.
TEST(CrashPoints, LongEveryPointAfterEverySend) {
  if (!long_tests()) GTEST_SKIP() << "set LAKESTREAM_LONG_TESTS=1";
  MessyStream stream = messy_stream(100000, 40, 11);
  Reference reference = uninterrupted(stream);
  for (const auto& point : crash_points())
    for (const auto& target : stream_of_each_kind()) {
      SCOPED_TRACE(point + " in " + target);
      MessyLake lake;
      lake.play(stream, [&](int send) { crash_in(lake, point, target, 1 + send % 2); });
      expect_same_as(reference, lake);
    }
}

}  // namespace
}  // namespace lakestream::testing
