// Membership of a Kafka consumer group, for ingest workers that share a topic: the group's
// coordinator assigns each worker some of the topic's partitions, and moves a dead worker's
// partitions to the others once its session times out. The member never fetches (its
// partitions stay paused): reading exact ranges is KafkaReader's job, and where each partition
// stands is the bronze table's per-partition txns, not the group's committed offsets.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "pipeline/pipeline.h"

namespace lakestream {

class GroupMembership {
 public:
  // Joins consumer group `group` subscribed to `topic`, with the pipeline's Kafka settings
  // (session.timeout.ms and the assignment strategy may be set under [kafka.properties]).
  // Throws Error when librdkafka refuses the configuration or the subscription.
  GroupMembership(const KafkaSettings& kafka, const std::string& group, const std::string& topic);
  // Leaves the group, so that the others get this member's partitions at once rather than after
  // the session timeout.
  ~GroupMembership();
  GroupMembership(const GroupMembership&) = delete;
  GroupMembership& operator=(const GroupMembership&) = delete;

  // Waits until the group has given this member an assignment (possibly empty: more members
  // than partitions) or `timeout` passes; true when it has one.
  bool wait_for_assignment(std::chrono::milliseconds timeout);
  // The partitions this member holds now (empty before the first assignment and during a
  // rebalance).
  std::set<int32_t> held() const;
  // How many assignments this member has received: changes when the group rebalanced.
  int64_t assignments() const;
  // Commits `next_offsets` (partition -> the next offset to read) to the group, for lag tools
  // (kafka-consumer-groups, Burrow); partitions this member no longer holds are left out.
  // Throws Error when the brokers refuse.
  void commit(const std::map<int32_t, int64_t>& next_offsets);

  const std::string& group() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// This process's membership of `group` for `topic`: joined on first use (waiting up to a minute
// for the first assignment), then kept until the process exits, so that a continuous run's
// cycles do not make the group rebalance.
GroupMembership& joined_group(const KafkaSettings& kafka, const std::string& group, const std::string& topic);
// The membership joined_group made, or nullptr when this process has not joined `group`.
GroupMembership* find_joined_group(const std::string& group);
// Leaves every group joined_group joined, at the end of a run, so that the other workers get
// the partitions at once (a worker killed -9 hands them over after its session times out).
void leave_joined_groups();

// This process as a worker, "host:pid", for progress records and status.
std::string worker_name();

// "0,2,5" (or "none"), for progress lines and status.
std::string describe_partitions(const std::set<int32_t>& partitions);

}  // namespace lakestream
