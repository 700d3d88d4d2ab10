#include "source/group_membership.h"

#include <librdkafka/rdkafka.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <thread>

#include "source/kafka_conf.h"
#include "util/error.h"

namespace lakestream {

struct GroupMembership::Impl {
  std::string group;
  std::string topic;
  rd_kafka_t* consumer = nullptr;
  std::thread poller;
  std::atomic<bool> stopping{false};

  mutable std::mutex mutex;
  std::condition_variable assigned_cv;
  std::set<int32_t> held;
  int64_t assignments = 0;

  // Serves the group protocol: librdkafka calls the rebalance callback, and keeps the member
  // alive (max.poll.interval.ms), only from poll. The partitions are paused, so nothing arrives.
  void poll_until_stopped() {
    while (!stopping.load()) {
      rd_kafka_message_t* m = rd_kafka_consumer_poll(consumer, 100);
      if (m) rd_kafka_message_destroy(m);
    }
  }

  static void on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* partitions,
                           void* opaque) {
    auto* self = static_cast<Impl*>(opaque);
    bool cooperative = std::strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    std::lock_guard<std::mutex> lock(self->mutex);
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
      if (cooperative) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_assign(rk, partitions)) rd_kafka_error_destroy(e);
      } else {
        rd_kafka_assign(rk, partitions);
        self->held.clear();
      }
      // Held, never fetched: the reader reads exact ranges on its own connection.
      rd_kafka_pause_partitions(rk, partitions);
      for (int i = 0; i < partitions->cnt; i++) self->held.insert(partitions->elems[i].partition);
      self->assignments++;
      self->assigned_cv.notify_all();
    } else {
      if (cooperative) {
        if (rd_kafka_error_t* e = rd_kafka_incremental_unassign(rk, partitions)) rd_kafka_error_destroy(e);
        for (int i = 0; i < partitions->cnt; i++) self->held.erase(partitions->elems[i].partition);
      } else {
        rd_kafka_assign(rk, nullptr);
        self->held.clear();
      }
    }
  }
};

GroupMembership::GroupMembership(const KafkaSettings& kafka, const std::string& group, const std::string& topic)
    : impl_(std::make_unique<Impl>()) {
  impl_->group = group;
  impl_->topic = topic;
  rd_kafka_conf_t* conf = make_kafka_conf(kafka);
  try {
    set_kafka_property(conf, "group.id", group);
    set_kafka_property(conf, "enable.auto.commit", "false");
    set_kafka_property(conf, "enable.auto.offset.store", "false");
  } catch (...) {
    rd_kafka_conf_destroy(conf);
    throw;
  }
  rd_kafka_conf_set_opaque(conf, impl_.get());
  rd_kafka_conf_set_rebalance_cb(conf, &Impl::on_rebalance);
  char err[512];
  impl_->consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!impl_->consumer) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("cannot create the consumer of group ") + group + ": " + err);
  }
  rd_kafka_poll_set_consumer(impl_->consumer);
  rd_kafka_topic_partition_list_t* subscription = rd_kafka_topic_partition_list_new(1);
  rd_kafka_topic_partition_list_add(subscription, topic.c_str(), RD_KAFKA_PARTITION_UA);
  rd_kafka_resp_err_t subscribed = rd_kafka_subscribe(impl_->consumer, subscription);
  rd_kafka_topic_partition_list_destroy(subscription);
  if (subscribed != RD_KAFKA_RESP_ERR_NO_ERROR) {
    rd_kafka_destroy(impl_->consumer);
    throw Error("cannot join consumer group " + group + " for topic " + topic + ": " + rd_kafka_err2str(subscribed));
  }
  impl_->poller = std::thread([impl = impl_.get()] { impl->poll_until_stopped(); });
}

GroupMembership::~GroupMembership() {
  impl_->stopping = true;
  if (impl_->poller.joinable()) impl_->poller.join();
  rd_kafka_consumer_close(impl_->consumer);  // serves the revocation, then leaves the group
  rd_kafka_destroy(impl_->consumer);
}

bool GroupMembership::wait_for_assignment(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(impl_->mutex);
  return impl_->assigned_cv.wait_for(lock, timeout, [&] { return impl_->assignments > 0; });
}

std::set<int32_t> GroupMembership::held() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->held;
}

int64_t GroupMembership::assignments() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  return impl_->assignments;
}

void GroupMembership::commit(const std::map<int32_t, int64_t>& next_offsets) {
  std::set<int32_t> now = held();
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(static_cast<int>(next_offsets.size()));
  for (const auto& [partition, offset] : next_offsets)
    if (now.count(partition)) rd_kafka_topic_partition_list_add(list, impl_->topic.c_str(), partition)->offset = offset;
  rd_kafka_resp_err_t err = list->cnt ? rd_kafka_commit(impl_->consumer, list, 0) : RD_KAFKA_RESP_ERR_NO_ERROR;
  rd_kafka_topic_partition_list_destroy(list);
  // A rebalance between held() and the commit makes the group refuse it; the next owner commits.
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR && err != RD_KAFKA_RESP_ERR_REBALANCE_IN_PROGRESS &&
      err != RD_KAFKA_RESP_ERR_ILLEGAL_GENERATION && err != RD_KAFKA_RESP_ERR_UNKNOWN_MEMBER_ID)
    throw Error("cannot commit offsets to consumer group " + impl_->group + ": " + rd_kafka_err2str(err));
}

const std::string& GroupMembership::group() const { return impl_->group; }

namespace {
std::mutex joined_mutex;
std::map<std::string, std::unique_ptr<GroupMembership>>& joined() {
  static auto* groups = new std::map<std::string, std::unique_ptr<GroupMembership>>;
  return *groups;
}
}  // namespace

GroupMembership& joined_group(const KafkaSettings& kafka, const std::string& group, const std::string& topic) {
  std::lock_guard<std::mutex> lock(joined_mutex);
  auto& member = joined()[group];
  if (!member) {
    member = std::make_unique<GroupMembership>(kafka, group, topic);
    // Kafka's coordinator waits for the members it knows to rejoin (at most their session
    // timeout) before it assigns; a worker with nothing yet simply reads nothing this run.
    member->wait_for_assignment(std::chrono::seconds(60));
  }
  return *member;
}

GroupMembership* find_joined_group(const std::string& group) {
  std::lock_guard<std::mutex> lock(joined_mutex);
  auto it = joined().find(group);
  return it == joined().end() ? nullptr : it->second.get();
}

void leave_joined_groups() {
  std::lock_guard<std::mutex> lock(joined_mutex);
  joined().clear();
}

std::string worker_name() {
  char host[256] = "";
  if (::gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "localhost");
  return std::string(host) + ":" + std::to_string(::getpid());
}

std::string describe_partitions(const std::set<int32_t>& partitions) {
  if (partitions.empty()) return "none";
  std::string text;
  for (int32_t p : partitions) text += (text.empty() ? "" : ",") + std::to_string(p);
  return text;
}

}  // namespace lakestream
