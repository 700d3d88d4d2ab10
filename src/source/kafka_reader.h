// Reads exact offset ranges of a Kafka topic with librdkafka: the source side of the ingest
// stream. Offsets are planned first (end offsets fixed when a run starts, Spark's
// Trigger.AvailableNow), then read; a replay after a crash reads the same ranges again.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "source/batch_plan.h"   // PartitionRange, plan_batches
#include "source/kafka_conf.h"   // make_kafka_conf

struct rd_kafka_message_s;

namespace lakestream {

struct Watermarks {
  int64_t low = 0;   // the earliest offset still held
  int64_t high = 0;  // the next offset to be written
};

// One Kafka record as read: the ingest stream copies it into DuckDB and lets go.
struct KafkaRecord {
  int32_t partition;
  int64_t offset;
  int64_t timestamp_ms;        // the record's Kafka timestamp, -1 if none
  const char* key;             // may be nullptr
  size_t key_size;
  const char* value;           // may be nullptr (a tombstone or empty value)
  size_t value_size;
};

class KafkaReader {
 public:
  // Connects with `kafka` (bootstrap resolved, properties passed through) to read `topic`.
  // `records_per_read` is the most records one read() asks for (the batch cap, 0 for none): the
  // prefetch queue is sized from it (see queued_records_per_partition in kafka_reader.cc).
  KafkaReader(const KafkaSettings& kafka, const std::string& topic, int64_t records_per_read = 0);
  ~KafkaReader();
  KafkaReader(const KafkaReader&) = delete;
  KafkaReader& operator=(const KafkaReader&) = delete;

  // The topic's partitions; Error when the topic does not exist (naming it and the brokers).
  std::vector<int32_t> partitions();
  // Low and high watermarks of every partition, asked of the brokers now.
  std::map<int32_t, Watermarks> watermarks();
  // Reads every record in `ranges` and calls `on_record` for each, in offset order per
  // partition; returns when every range is read to its end. A range whose records are gone
  // (retention, topic recreated) throws Error naming the partition and offsets; so does a
  // partition that makes no progress for 30 s (broker gone). Empty ranges are skipped.
  void read(const std::vector<PartitionRange>& ranges, const std::function<void(const KafkaRecord&)>& on_record);
  // Waits up to `timeout_ms` for a record at or past `next_offsets` (partition -> the next offset
  // the stream will read) in any of those partitions, blocking in the consumer's fetch rather
  // than asking the brokers again and again; true when one arrived. It positions the kept
  // assignment at `next_offsets` first unless it already continues there, and keeps the records
  // it took for the next read(), so nothing is fetched twice. Reading stays planned: the caller
  // still fixes the ranges to read (from its checkpoint) and read() delivers exactly those.
  bool wait_for_records(const std::map<int32_t, int64_t>& next_offsets, int timeout_ms);
  // Stops fetching the assigned partitions until resume_fetching(): for a consumer that waits on
  // purpose, as a stream filling a batch to its target latency does. Left fetching, librdkafka
  // asks the brokers for the few records that arrive every few milliseconds, each fetch a round
  // trip of its own (about 270 a second at 1,000 records/s: a fetch returns as soon as it has a
  // record, on the embedded broker always, on Kafka with the default fetch.min.bytes). What it
  // had fetched past the last read is dropped, and fetched again on resume in one go.
  void pause_fetching();
  void resume_fetching();
  // Commits `next_offsets` (partition -> the next offset to read) to the consumer group named by
  // the `group.id` property, so that standard lag tools (kafka-consumer-groups, Burrow) see how
  // far the stream is. Informational only: lakestream never reads these back. Throws Error when
  // the brokers refuse the commit.
  void commit_to_group(const std::map<int32_t, int64_t>& next_offsets);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lakestream
