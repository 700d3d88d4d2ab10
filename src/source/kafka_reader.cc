// The Kafka reader: a consumer with explicit assignments (no group membership; the offsets live
// with the output tables, and are only copied to a consumer group for lag tools when asked),
// reading planned ranges exactly.
#include "source/kafka_reader.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "source/kafka_metadata.h"
#include "util/error.h"

namespace lakestream {

namespace {

constexpr int kRequestTimeoutMs = 10000;
constexpr auto kStallTimeout = std::chrono::seconds(30);
// Records are taken from the consumer queue this many at a time (one lock and clock read per
// batch rather than per record), waiting at most kBatchWaitMs for a batch to fill.
constexpr size_t kPollBatch = 1000;
constexpr int kBatchWaitMs = 10;

struct PrefetchLimits {
  int64_t messages;
  int64_t kbytes;
};

// librdkafka 2.0 stops fetching a partition for a whole second once the consumer queue holds
// queued.min.messages records or queued.max.messages.kbytes of them (there is no setting for
// that pause before 2.1). A read that outruns our decoding fills the queue, and with the
// defaults (100,000 records) every batch of more records paused for up to a second: 2 of 8
// batches of 250,000 took 1.1 s instead of 0.12 s. So the queue may hold two reads' worth of
// records (what a read needs plus what partitions that finished early fetched past their end),
// which bounds memory by the batch cap; the bytes bound is for large records.
PrefetchLimits prefetch_limits(int64_t records_per_read) {
  constexpr int64_t kMaxKbytes = 256 * 1024;
  if (records_per_read <= 0) return {1'000'000, kMaxKbytes};  // no cap: the batch is all there is
  return {std::clamp<int64_t>(2 * records_per_read, 10'000, 10'000'000), kMaxKbytes};
}

std::string offsets_text(const PartitionRange& r) {
  return std::to_string(r.start) + ".." + std::to_string(r.end);
}

// Frees a batch of messages however the callback returns.
struct MessagesGuard {
  rd_kafka_message_t** messages;
  ssize_t count;
  ~MessagesGuard() {
    for (ssize_t i = 0; i < count; i++) rd_kafka_message_destroy(messages[i]);
  }
};

struct QueueGuard {
  rd_kafka_queue_t* queue;
  ~QueueGuard() { rd_kafka_queue_destroy(queue); }
};

}  // namespace

struct KafkaReader::Impl {
  std::string topic;
  std::string bootstrap;  // resolved, for messages
  rd_kafka_t* consumer = nullptr;

  Watermarks query_watermarks(int32_t partition) {
    Watermarks w;
    rd_kafka_resp_err_t err =
        rd_kafka_query_watermark_offsets(consumer, topic.c_str(), partition, &w.low, &w.high, kRequestTimeoutMs);
    if (err)
      throw Error("cannot get the offsets of topic " + topic + " partition " + std::to_string(partition) +
                  " from brokers " + bootstrap + ": " + rd_kafka_err2str(err) + "; is Kafka running there?");
    return w;
  }

  Error gone_error(const PartitionRange& r, int64_t earliest) {
    return Error("partition " + std::to_string(r.partition) + ": offsets " + offsets_text(r) +
                 " are no longer in topic " + topic + " (earliest now " + std::to_string(earliest) +
                 "): the data was deleted by retention or the topic was recreated");
  }

  Error not_yet_error(const PartitionRange& r, int64_t high) {
    return Error("partition " + std::to_string(r.partition) + ": offsets " + offsets_text(r) + " are not in topic " +
                 topic + " (it ends at offset " + std::to_string(high) +
                 " now): the topic was recreated or emptied since these offsets were planned");
  }

  // The earliest (RD_KAFKA_OFFSET_BEGINNING) or next (RD_KAFKA_OFFSET_END) offset of every
  // partition in one ListOffsets request per broker, not two round trips per partition.
  std::map<int32_t, int64_t> list_offsets(const std::vector<int32_t>& partitions, int64_t which) {
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(static_cast<int>(partitions.size()));
    for (int32_t p : partitions) rd_kafka_topic_partition_list_add(list, topic.c_str(), p)->offset = which;
    rd_kafka_resp_err_t err = rd_kafka_offsets_for_times(consumer, list, kRequestTimeoutMs);
    std::map<int32_t, int64_t> offsets;
    for (int i = 0; i < list->cnt && !err; i++) {
      err = list->elems[i].err;
      offsets[list->elems[i].partition] = list->elems[i].offset;
    }
    rd_kafka_topic_partition_list_destroy(list);
    if (err)
      throw Error("cannot get the offsets of topic " + topic + " from brokers " + bootstrap + ": " +
                  rd_kafka_err2str(err) + "; is Kafka running there?");
    return offsets;
  }

  std::map<int32_t, Watermarks> watermarks(const std::vector<int32_t>& partitions) {
    std::map<int32_t, Watermarks> result;
    if (partitions.empty()) return result;
    auto low = list_offsets(partitions, RD_KAFKA_OFFSET_BEGINNING);
    auto high = list_offsets(partitions, RD_KAFKA_OFFSET_END);
    for (int32_t p : partitions) result[p] = {low.at(p), high.at(p)};
    return result;
  }

  // Fails early, with the clear error, when a range is already outside what the broker holds.
  void check_ranges_exist(const std::vector<PartitionRange>& ranges) {
    std::vector<int32_t> partitions;
    for (const auto& r : ranges) partitions.push_back(r.partition);
    auto marks = watermarks(partitions);
    for (const auto& r : ranges) {
      const Watermarks& w = marks.at(r.partition);
      if (r.start < w.low) throw gone_error(r, w.low);
      if (r.end > w.high) throw not_yet_error(r, w.high);
    }
  }
};

KafkaReader::KafkaReader(const KafkaSettings& kafka, const std::string& topic, int64_t records_per_read)
    : impl_(std::make_unique<Impl>()) {
  impl_->topic = topic;
  rd_kafka_conf_t* conf = make_kafka_conf(kafka);
  impl_->bootstrap = kafka_property(conf, "bootstrap.servers");
  try {
    // librdkafka's consumer_poll needs a group; no member joins it (assign, never subscribe).
    if (!has_kafka_property(kafka, "group.id")) set_kafka_property(conf, "group.id", "lakestream-reader");
    // An empty fetch waits this long at the broker; small, so a read ends soon after its last record.
    if (!has_kafka_property(kafka, "fetch.wait.max.ms")) set_kafka_property(conf, "fetch.wait.max.ms", "10");
    PrefetchLimits limits = prefetch_limits(records_per_read);
    if (!has_kafka_property(kafka, "queued.min.messages"))
      set_kafka_property(conf, "queued.min.messages", std::to_string(limits.messages));
    if (!has_kafka_property(kafka, "queued.max.messages.kbytes"))
      set_kafka_property(conf, "queued.max.messages.kbytes", std::to_string(limits.kbytes));
    // Not overridable: offsets are ours to keep, the end of a partition must be visible, and a
    // vanished offset must be an error rather than a silent jump.
    set_kafka_property(conf, "enable.auto.commit", "false");
    set_kafka_property(conf, "enable.auto.offset.store", "false");
    set_kafka_property(conf, "enable.partition.eof", "true");
    set_kafka_property(conf, "auto.offset.reset", "error");
  } catch (...) {
    rd_kafka_conf_destroy(conf);
    throw;
  }
  char errstr[512];
  impl_->consumer = rd_kafka_new(RD_KAFKA_CONSUMER, conf, errstr, sizeof errstr);
  if (!impl_->consumer) {
    rd_kafka_conf_destroy(conf);
    throw Error(std::string("cannot create a Kafka consumer: ") + errstr);
  }
  rd_kafka_poll_set_consumer(impl_->consumer);  // client errors arrive through consumer_poll
}

void KafkaReader::commit_to_group(const std::map<int32_t, int64_t>& next_offsets) {
  if (next_offsets.empty()) return;
  rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(static_cast<int>(next_offsets.size()));
  for (const auto& [partition, offset] : next_offsets)
    rd_kafka_topic_partition_list_add(list, impl_->topic.c_str(), partition)->offset = offset;
  rd_kafka_resp_err_t err = rd_kafka_commit(impl_->consumer, list, /*async=*/0);
  rd_kafka_topic_partition_list_destroy(list);
  if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
    throw Error("cannot commit the offsets of topic " + impl_->topic + " to its consumer group: " + rd_kafka_err2str(err) +
                "; lag tools will show older offsets until the next batch (the stream's progress is not affected)");
}

KafkaReader::~KafkaReader() {
  if (impl_->consumer) {
    rd_kafka_consumer_close(impl_->consumer);
    rd_kafka_destroy(impl_->consumer);
  }
}

std::vector<int32_t> KafkaReader::partitions() {
  return topic_partitions(impl_->consumer, impl_->topic, impl_->bootstrap);
}

std::map<int32_t, Watermarks> KafkaReader::watermarks() {
  return impl_->watermarks(partitions());
}

void KafkaReader::read(const std::vector<PartitionRange>& ranges,
                       const std::function<void(const KafkaRecord&)>& on_record) {
  using Clock = std::chrono::steady_clock;
  struct Progress {
    PartitionRange range;
    int64_t next;  // the next offset expected
    bool done = false;
    // When `next` was last seen to move (checked only while waiting: reading the clock for
    // every record costs more than the record).
    Clock::time_point last_progress;
    int64_t next_at_last_progress;
  };
  std::map<int32_t, Progress> progress;
  std::vector<PartitionRange> wanted;
  for (const auto& r : ranges) {
    if (r.size() <= 0) continue;
    if (progress.count(r.partition))
      throw Error("reading topic " + impl_->topic + ": partition " + std::to_string(r.partition) +
                  " appears twice in one read (a planning bug)");
    progress[r.partition] = {r, r.start, false, Clock::now(), r.start};
    wanted.push_back(r);
  }
  if (wanted.empty()) return;
  impl_->check_ranges_exist(wanted);

  rd_kafka_topic_partition_list_t* assignment = rd_kafka_topic_partition_list_new(static_cast<int>(wanted.size()));
  for (const auto& r : wanted)
    rd_kafka_topic_partition_list_add(assignment, impl_->topic.c_str(), r.partition)->offset = r.start;
  rd_kafka_resp_err_t err = rd_kafka_assign(impl_->consumer, assignment);
  rd_kafka_topic_partition_list_destroy(assignment);
  if (err) throw Error("cannot read topic " + impl_->topic + ": " + rd_kafka_err2str(err));
  // Whatever happens, leave nothing assigned: the next read assigns its own offsets.
  struct Unassign {
    rd_kafka_t* consumer;
    ~Unassign() { rd_kafka_assign(consumer, nullptr); }
  } unassign{impl_->consumer};

  size_t remaining = wanted.size();
  std::string last_client_error;
  // A finished partition is not paused: librdkafka 2.0 may wait up to a second before fetching
  // a resumed partition again in the next read. Its prefetched records are ignored and dropped
  // when the read unassigns (bounded by queued.max.messages.kbytes).
  auto finish = [&](Progress& p) {
    p.done = true;
    remaining--;
  };

  // One message: a record of ours goes to on_record; errors and partition ends update progress.
  auto handle = [&](rd_kafka_message_t* message) {
    auto found = message->rkt ? progress.find(message->partition) : progress.end();
    Progress* p = found == progress.end() ? nullptr : &found->second;

    if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (p && !p->done && message->offset >= p->range.end) finish(*p);
      return;
    }
    if (message->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE || message->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
      if (!p) return;
      Watermarks w = impl_->query_watermarks(p->range.partition);
      if (p->next < w.low) throw impl_->gone_error(p->range, w.low);
      throw impl_->not_yet_error(p->range, w.high);
    }
    if (message->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || message->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
        message->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
      throw Error("topic " + impl_->topic + " or one of its partitions vanished from brokers " + impl_->bootstrap +
                  " while reading: " + rd_kafka_message_errstr(message) + "; was the topic deleted?");
    if (message->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
        message->err == RD_KAFKA_RESP_ERR__AUTHENTICATION || message->err == RD_KAFKA_RESP_ERR__FATAL)
      throw Error("cannot read topic " + impl_->topic + " from brokers " + impl_->bootstrap + ": " +
                  rd_kafka_message_errstr(message) + "; check the kafka security properties");
    if (message->err) {
      // Transient (a broker down, a connection reset): librdkafka retries; the stall timeout decides.
      last_client_error = rd_kafka_message_errstr(message);
      return;
    }

    if (!p || p->done || message->offset < p->next) return;  // not ours, or already delivered
    if (message->offset < p->range.end) {
      rd_kafka_timestamp_type_t type;
      KafkaRecord record{message->partition,
                         message->offset,
                         rd_kafka_message_timestamp(message, &type),
                         static_cast<const char*>(message->key),
                         message->key_len,
                         static_cast<const char*>(message->payload),
                         message->len};
      on_record(record);
      p->next = message->offset + 1;
    }
    // Transaction markers take offsets but are never delivered, so the last record may sit
    // below end-1; a record at or past end-1, or the partition's end (EOF), closes the range.
    if (message->offset >= p->range.end - 1) finish(*p);
  };

  rd_kafka_queue_t* queue = rd_kafka_queue_get_consumer(impl_->consumer);
  QueueGuard queue_guard{queue};
  std::vector<rd_kafka_message_t*> messages(kPollBatch);
  while (remaining > 0) {
    ssize_t count = rd_kafka_consume_batch_queue(queue, kBatchWaitMs, messages.data(), messages.size());
    if (count <= 0) {
      auto now = Clock::now();
      for (auto& [partition, p] : progress) {
        if (p.next != p.next_at_last_progress) {
          p.last_progress = now;
          p.next_at_last_progress = p.next;
        }
        if (p.done || now - p.last_progress < kStallTimeout) continue;
        throw Error("partition " + std::to_string(partition) + " of topic " + impl_->topic +
                    ": no records for 30 s while reading offsets " + offsets_text(p.range) + " (next " +
                    std::to_string(p.next) + ") from brokers " + impl_->bootstrap +
                    (last_client_error.empty() ? "" : " (last client error: " + last_client_error + ")") +
                    "; is the broker reachable?");
      }
      continue;
    }
    MessagesGuard guard{messages.data(), count};
    for (ssize_t i = 0; i < count && remaining > 0; i++) handle(messages[i]);
  }
}

}  // namespace lakestream
