// Workers that share a topic through a consumer group: the group splits the partitions between
// them, and a worker that leaves hands its partitions to the others.
#include "source/group_membership.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "broker/embedded_broker.h"

namespace lakestream::testing {
namespace {

KafkaSettings settings_for(const EmbeddedBroker& broker) {
  KafkaSettings kafka;
  kafka.bootstrap = broker.bootstrap();
  // The embedded broker completes a rebalance only when the session of a member that has not
  // rejoined times out; a short session keeps the test short.
  kafka.properties = {{"session.timeout.ms", "6000"}, {"heartbeat.interval.ms", "500"}};
  return kafka;
}

// Waits until the members' partitions are disjoint and together all of `partitions`.
bool wait_for_split(const std::vector<GroupMembership*>& members, int partitions, std::chrono::seconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::set<int32_t> all;
    size_t total = 0;
    bool everyone_holds = true;
    for (auto* m : members) {
      auto held = m->held();
      everyone_holds = everyone_holds && !held.empty();
      total += held.size();
      all.insert(held.begin(), held.end());
    }
    if (everyone_holds && total == static_cast<size_t>(partitions) && all.size() == total) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

TEST(GroupMembership, TwoWorkersSplitTheTopicAndOneTakesOverWhenTheOtherLeaves) {
  EmbeddedBroker broker({{"orders", 6}});
  KafkaSettings kafka = settings_for(broker);
  auto first = std::make_unique<GroupMembership>(kafka, "shop-workers", "orders");
  ASSERT_TRUE(first->wait_for_assignment(std::chrono::seconds(30)));
  ASSERT_TRUE(wait_for_split({first.get()}, 6, std::chrono::seconds(30))) << describe_partitions(first->held());

  auto second = std::make_unique<GroupMembership>(kafka, "shop-workers", "orders");
  ASSERT_TRUE(wait_for_split({first.get(), second.get()}, 6, std::chrono::seconds(30)))
      << describe_partitions(first->held()) << " and " << describe_partitions(second->held());
  EXPECT_EQ(first->held().size(), 3u);

  second.reset();  // leaves the group: the first gets everything back
  EXPECT_TRUE(wait_for_split({first.get()}, 6, std::chrono::seconds(30))) << describe_partitions(first->held());
}

TEST(GroupMembership, DescribesPartitionsForProgressLines) {
  EXPECT_EQ(describe_partitions({}), "none");
  EXPECT_EQ(describe_partitions({2, 0, 5}), "0,2,5");
}

}  // namespace
}  // namespace lakestream::testing
