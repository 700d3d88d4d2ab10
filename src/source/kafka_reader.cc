// The Kafka reader: a consumer with explicit assignments (no group membership; the offsets live
// with the output tables, and are only copied to a consumer group for lag tools when asked),
// reading planned ranges exactly.
#include "source/kafka_reader.h"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
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
constexpr int kWakeTimeoutMs = 200;

// How much librdkafka may fetch ahead into each partition's queue. It fetches while the read
// (or, between reads, DuckDB) is busy, up to queued.min.messages records or
// queued.max.messages.kbytes per partition queue; a full queue stops that partition's fetching
// until the broker thread looks again (read() wakes it when it runs dry). With the defaults
// (100,000 records into one common queue) a batch larger than that waited up to a second: 2 of
// 8 batches of 250,000 took 1.1 s instead of 0.12 s. A sixteenth of the batch cap per partition
// holds a whole batch across 16 partitions, so memory follows the cap, not the backlog.
int64_t queued_records_per_partition(int64_t records_per_read) {
  if (records_per_read <= 0) return 100'000;  // librdkafka's default
  return std::clamp<int64_t>(records_per_read / 16, 1'000, 100'000);
}
constexpr int64_t kQueuedKbytesPerPartition = 8 * 1024;  // the bound for large records

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
  std::string bootstrap_setting;  // as the pipeline file has it ("embedded:shop"), for hints
  rd_kafka_t* consumer = nullptr;

  // The assignment is kept from one read to the next: a run's batches read on where the last
  // one ended, so what librdkafka fetched and decompressed past a batch's end (a fetch brings
  // whole compressed record batches, ~1 MiB per partition) is the next batch's start rather
  // than thrown away and fetched again. Reassigning for every batch decompressed 2.6 times the
  // topic. Each partition has its own queue, so a read takes exactly its range from it.
  struct Assigned {
    rd_kafka_queue_t* queue = nullptr;
    int64_t next = -1;  // the offset the queue continues at: the end of the last read's range
  };
  std::map<int32_t, Assigned> assigned;
  // The first message of a partition's queue, taken out by wait_for_records(): the next read
  // handles it before the rest of that queue.
  std::map<int32_t, rd_kafka_message_t*> held;
  bool paused = false;  // pause_fetching() holds the assignment's fetches

  // Set by librdkafka's thread when a watched queue goes from empty to not empty.
  std::mutex arrived_mutex;
  std::condition_variable arrived_cv;
  bool arrived = false;
  static void on_arrival(rd_kafka_t*, void* opaque) {
    auto* impl = static_cast<Impl*>(opaque);
    std::lock_guard<std::mutex> lock(impl->arrived_mutex);
    impl->arrived = true;
    impl->arrived_cv.notify_all();
  }

  // Whether every range starts where the kept assignment continues.
  bool continues(const std::vector<PartitionRange>& ranges) const {
    if (assigned.empty()) return false;
    for (const auto& r : ranges) {
      auto it = assigned.find(r.partition);
      if (it == assigned.end() || it->second.next != r.start) return false;
    }
    return true;
  }

  void assign(const std::vector<PartitionRange>& ranges) {
    unassign();
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(static_cast<int>(ranges.size()));
    for (const auto& r : ranges) {
      rd_kafka_queue_t* queue = rd_kafka_queue_get_partition(consumer, topic.c_str(), r.partition);
      if (!queue) {
        rd_kafka_topic_partition_list_destroy(list);
        unassign();
        throw Error("cannot read topic " + topic + ": partition " + std::to_string(r.partition) + " is unknown");
      }
      // Before the assignment starts fetching: its records stay in the partition's queue
      // instead of going to the consumer's common one.
      rd_kafka_queue_forward(queue, nullptr);
      assigned[r.partition] = {queue, r.start};
      rd_kafka_topic_partition_list_add(list, topic.c_str(), r.partition)->offset = r.start;
    }
    rd_kafka_resp_err_t err = rd_kafka_assign(consumer, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err) {
      unassign();
      throw Error("cannot read topic " + topic + ": " + rd_kafka_err2str(err));
    }
  }

  // Pauses or resumes fetching the assigned partitions. On resume librdkafka fetches from the
  // record after the last one taken from a queue (a held one included), which is where the
  // kept assignment continues.
  void set_paused(bool pause) {
    if (assigned.empty()) return;  // nothing is fetched (unassign resumed what was paused)
    if (paused == pause) return;
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(static_cast<int>(assigned.size()));
    for (const auto& [partition, a] : assigned) rd_kafka_topic_partition_list_add(list, topic.c_str(), partition);
    rd_kafka_resp_err_t err = pause ? rd_kafka_pause_partitions(consumer, list) : rd_kafka_resume_partitions(consumer, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err) throw Error("cannot " + std::string(pause ? "pause" : "resume") + " reading topic " + topic + ": " + rd_kafka_err2str(err));
    paused = pause;
  }

  void unassign() {
    if (paused) set_paused(false);  // a partition assigned again must fetch
    for (auto& [partition, message] : held) rd_kafka_message_destroy(message);
    held.clear();
    if (assigned.empty()) return;
    rd_kafka_assign(consumer, nullptr);
    for (auto& [partition, a] : assigned) rd_kafka_queue_destroy(a.queue);
    assigned.clear();
  }

  // Any request to a partition's leader wakes the broker thread that fetches it. The answer
  // does not matter, and a broker that is down is the stall timeout's to report.
  void wake_fetcher(int32_t partition) {
    int64_t low = 0, high = 0;
    rd_kafka_query_watermark_offsets(consumer, topic.c_str(), partition, &low, &high, kWakeTimeoutMs);
  }

  void throw_if_fatal(rd_kafka_message_t* message) {
    if (message->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART || message->err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
        message->err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
      throw Error("topic " + topic + " or one of its partitions vanished from brokers " + bootstrap +
                  " while reading: " + rd_kafka_message_errstr(message) + "; was the topic deleted?");
    if (message->err == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED ||
        message->err == RD_KAFKA_RESP_ERR__AUTHENTICATION || message->err == RD_KAFKA_RESP_ERR__FATAL)
      throw Error("cannot read topic " + topic + " from brokers " + bootstrap + ": " +
                  rd_kafka_message_errstr(message) + "; check the kafka security properties");
  }

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
  impl_->bootstrap_setting = kafka.bootstrap;
  try {
    // librdkafka's consumer_poll needs a group; no member joins it (assign, never subscribe).
    if (!has_kafka_property(kafka, "group.id")) set_kafka_property(conf, "group.id", "lakestream-reader");
    // An empty fetch waits this long at the broker; small, so a read ends soon after its last record.
    if (!has_kafka_property(kafka, "fetch.wait.max.ms")) set_kafka_property(conf, "fetch.wait.max.ms", "10");
    if (!has_kafka_property(kafka, "queued.min.messages"))
      set_kafka_property(conf, "queued.min.messages", std::to_string(queued_records_per_partition(records_per_read)));
    if (!has_kafka_property(kafka, "queued.max.messages.kbytes"))
      set_kafka_property(conf, "queued.max.messages.kbytes", std::to_string(kQueuedKbytesPerPartition));
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
    impl_->unassign();  // the partition queues go before the consumer closes
    rd_kafka_consumer_close(impl_->consumer);
    rd_kafka_destroy(impl_->consumer);
  }
}

std::vector<int32_t> KafkaReader::partitions() {
  return topic_partitions(impl_->consumer, impl_->topic, impl_->bootstrap, impl_->bootstrap_setting);
}

std::map<int32_t, Watermarks> KafkaReader::watermarks() {
  return impl_->watermarks(partitions());
}

void KafkaReader::pause_fetching() { impl_->set_paused(true); }

void KafkaReader::resume_fetching() { impl_->set_paused(false); }

bool KafkaReader::wait_for_records(const std::map<int32_t, int64_t>& next_offsets, int timeout_ms) {
  if (next_offsets.empty()) return false;
  impl_->set_paused(false);  // a paused assignment would never deliver
  std::vector<PartitionRange> positions;
  for (const auto& [partition, next] : next_offsets) positions.push_back({partition, next, next});
  if (!impl_->continues(positions)) impl_->assign(positions);
  for (auto& [partition, a] : impl_->assigned) rd_kafka_queue_cb_event_enable(a.queue, &Impl::on_arrival, impl_.get());
  struct StopWatching {
    Impl& impl;
    ~StopWatching() {
      for (auto& [partition, a] : impl.assigned) rd_kafka_queue_cb_event_enable(a.queue, nullptr, nullptr);
    }
  } stop_watching{*impl_};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    {
      std::lock_guard<std::mutex> lock(impl_->arrived_mutex);
      impl_->arrived = false;  // before looking: an arrival after the look wakes the wait below
    }
    for (const auto& [partition, next] : next_offsets) {
      if (impl_->held.count(partition)) return true;
      rd_kafka_queue_t* queue = impl_->assigned.at(partition).queue;
      // A new record is kept for read(); end-of-partition events and transient errors go (read()
      // meets a lasting error again and reports it).
      while (rd_kafka_message_t* message = rd_kafka_consume_queue(queue, 0)) {
        if (message->err || message->offset < next) {
          rd_kafka_message_destroy(message);
          continue;
        }
        impl_->held[partition] = message;
        return true;
      }
    }
    std::unique_lock<std::mutex> lock(impl_->arrived_mutex);
    if (!impl_->arrived_cv.wait_until(lock, deadline, [&] { return impl_->arrived; })) return false;
  }
}

void KafkaReader::read(const std::vector<PartitionRange>& ranges,
                       const std::function<void(const KafkaRecord&)>& on_record) {
  using Clock = std::chrono::steady_clock;
  impl_->set_paused(false);  // a paused assignment would never deliver
  struct Progress {
    PartitionRange range;
    int64_t next;  // the next offset expected
    bool done = false;
    // A record past the range's end was taken from the queue (a range ending in offsets
    // without records, such as transaction markers): the next batch cannot read on from here.
    bool overshot = false;
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
    progress[r.partition] = {r, r.start, false, false, Clock::now(), r.start};
    wanted.push_back(r);
  }
  if (wanted.empty()) return;
  impl_->check_ranges_exist(wanted);
  if (!impl_->continues(wanted)) impl_->assign(wanted);
  // Whatever goes wrong, the next read starts from a fresh assignment.
  struct DropOnFailure {
    Impl& impl;
    bool read_whole = false;
    ~DropOnFailure() {
      if (!read_whole) impl.unassign();
    }
  } drop_on_failure{*impl_};

  size_t remaining = wanted.size();
  std::string last_client_error;
  auto finish = [&](Progress& p) {
    p.done = true;
    remaining--;
  };

  // One message of partition p's queue: a record of ours goes to on_record; errors and the
  // partition's end update progress.
  auto handle = [&](Progress& p, rd_kafka_message_t* message) {
    if (message->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (!p.done && message->offset >= p.range.end) finish(p);
      return;
    }
    if (message->err == RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE || message->err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
      Watermarks w = impl_->query_watermarks(p.range.partition);
      if (p.next < w.low) throw impl_->gone_error(p.range, w.low);
      throw impl_->not_yet_error(p.range, w.high);
    }
    if (message->err) {
      impl_->throw_if_fatal(message);
      last_client_error = rd_kafka_message_errstr(message);  // transient: librdkafka retries
      return;
    }
    if (p.done || message->offset < p.next) return;  // already delivered
    if (message->offset < p.range.end) {
      rd_kafka_timestamp_type_t type;
      KafkaRecord record{message->partition,
                         message->offset,
                         rd_kafka_message_timestamp(message, &type),
                         static_cast<const char*>(message->key),
                         message->key_len,
                         static_cast<const char*>(message->payload),
                         message->len};
      on_record(record);
      p.next = message->offset + 1;
    } else {
      p.overshot = true;
    }
    // Transaction markers take offsets but are never delivered, so the last record may sit
    // below end-1; a record at or past end-1, or the partition's end (EOF), closes the range.
    if (message->offset >= p.range.end - 1) finish(p);
  };

  // Takes at most as many messages as p's range has offsets left, so that the records after it
  // stay queued for the next read (when offsets without records, such as transaction markers,
  // end the range, a record after it may be taken: see `overshot`). Returns how many it took.
  std::vector<rd_kafka_message_t*> messages(kPollBatch);
  auto take = [&](Progress& p, int wait_ms) -> ssize_t {
    auto kept = impl_->held.find(p.range.partition);
    if (kept != impl_->held.end()) {
      rd_kafka_message_t* message = kept->second;
      impl_->held.erase(kept);
      MessagesGuard guard{&message, 1};
      handle(p, message);
      return 1;
    }
    size_t left = static_cast<size_t>(std::max<int64_t>(1, p.range.end - p.next));
    ssize_t count =
        rd_kafka_consume_batch_queue(impl_->assigned.at(p.range.partition).queue, wait_ms, messages.data(),
                                     std::min(messages.size(), left));
    MessagesGuard guard{messages.data(), count};
    for (ssize_t i = 0; i < count; i++) handle(p, messages[i]);
    return count;
  };

  rd_kafka_queue_t* client_events = rd_kafka_queue_get_consumer(impl_->consumer);
  QueueGuard client_events_guard{client_events};
  size_t starved_rounds = 0;
  while (remaining > 0) {
    ssize_t taken = 0;
    for (auto& [partition, p] : progress)
      if (!p.done) taken += std::max<ssize_t>(0, take(p, 0));
    if (taken > 0 || remaining == 0) continue;

    // Nothing queued for any open range. Client-wide errors (a broker down) arrive on the
    // consumer's own queue.
    if (rd_kafka_message_t* event = rd_kafka_consume_queue(client_events, 0)) {
      MessagesGuard guard{&event, 1};
      if (event->err) {
        impl_->throw_if_fatal(event);
        last_client_error = rd_kafka_message_errstr(event);
      }
    }
    std::vector<Progress*> open;
    for (auto& [partition, p] : progress)
      if (!p.done) open.push_back(&p);
    if (take(*open.front(), kBatchWaitMs) > 0) continue;
    // Still nothing: librdkafka 2.0 stops fetching a partition whose queue was full and looks
    // again only when its broker thread wakes for a request, a response or after up to a
    // second; a watermark request to the partition's leader wakes it now. (Between reads the
    // kept queues fill up while the batch is written, so a read may drain them and get here.)
    impl_->wake_fetcher(open[starved_rounds++ % open.size()]->range.partition);

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
  }
  // Where each queue goes on; -1 (never a range's start) makes the next read assign afresh.
  for (const auto& [partition, p] : progress) impl_->assigned.at(partition).next = p.overshot ? -1 : p.range.end;
  drop_on_failure.read_whole = true;
}

}  // namespace lakestream
