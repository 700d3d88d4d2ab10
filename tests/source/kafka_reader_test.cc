// The embedded broker, the JSON-lines producer and the Kafka reader, over real TCP: what goes in
// comes out once, exact ranges are exact, and vanished offsets fail with a clear error.
#include "support/error_of.h"
#include "source/kafka_reader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <set>
#include <sstream>
#include <thread>

#include "broker/embedded_broker.h"
#include "source/json_producer.h"
#include "util/error.h"

namespace lakestream {
namespace {

std::string order_line(int i) {
  return "{\"order_id\": \"o" + std::to_string(i) + "\", \"amount\": " + std::to_string(i * 10) + "}";
}

struct Read {
  int32_t partition;
  int64_t offset;
  std::string key;
  std::string value;
  int64_t timestamp_ms;
};

std::vector<Read> read_all(KafkaReader& reader, const std::vector<PartitionRange>& ranges) {
  std::vector<Read> out;
  reader.read(ranges, [&](const KafkaRecord& r) {
    out.push_back({r.partition, r.offset, r.key ? std::string(r.key, r.key_size) : "",
                   r.value ? std::string(r.value, r.value_size) : "", r.timestamp_ms});
  });
  return out;
}

std::vector<PartitionRange> everything(const std::map<int32_t, Watermarks>& marks) {
  std::vector<PartitionRange> ranges;
  for (const auto& [partition, w] : marks) ranges.push_back({partition, w.low, w.high});
  return ranges;
}


// One broker with 1,000 orders in topic orders (3 partitions), shared by the read-only tests.
class KafkaReaderTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    broker_ = new EmbeddedBroker({parse_topic_spec("orders:3")});
    std::stringstream lines;
    for (int i = 0; i < 1000; i++) lines << order_line(i) << "\n" << (i % 100 == 0 ? "\n  \n" : "");
    result_ = produce_json_lines(kafka(), "orders", "order_id", lines);
  }
  static void TearDownTestSuite() {
    delete broker_;
    broker_ = nullptr;
  }
  static KafkaSettings kafka() { return {broker_->bootstrap(), {}}; }

  static EmbeddedBroker* broker_;
  static ProduceResult result_;
};
EmbeddedBroker* KafkaReaderTest::broker_ = nullptr;
ProduceResult KafkaReaderTest::result_;

TEST_F(KafkaReaderTest, ProducerDeliversEveryNonBlankLine) {
  EXPECT_EQ(result_.delivered, 1000);
  EXPECT_EQ(result_.failed, 0);
  EXPECT_EQ(result_.without_key, 0);
}

TEST_F(KafkaReaderTest, PartitionsAndWatermarks) {
  KafkaReader reader(kafka(), "orders");
  EXPECT_EQ(reader.partitions(), (std::vector<int32_t>{0, 1, 2}));
  int64_t total = 0;
  for (const auto& [partition, w] : reader.watermarks()) {
    EXPECT_EQ(w.low, 0);
    EXPECT_GT(w.high, 0) << "partition " << partition << " got nothing: the key spreads 1000 orders";
    total += w.high - w.low;
  }
  EXPECT_EQ(total, 1000);
}

TEST_F(KafkaReaderTest, ReadsEveryRecordOnceWithItsKeyAndValue) {
  KafkaReader reader(kafka(), "orders");
  auto records = read_all(reader, everything(reader.watermarks()));
  ASSERT_EQ(records.size(), 1000u);
  std::set<std::pair<int32_t, int64_t>> positions;
  std::set<std::string> values;
  std::map<std::string, int32_t> partition_of_key;
  std::map<int32_t, int64_t> last_offset;
  for (const auto& r : records) {
    EXPECT_TRUE(positions.insert({r.partition, r.offset}).second) << "read twice: " << r.partition << "/" << r.offset;
    values.insert(r.value);
    EXPECT_NE(r.value.find("\"order_id\": \"" + r.key + "\""), std::string::npos) << "key " << r.key << " of " << r.value;
    EXPECT_TRUE(partition_of_key.emplace(r.key, r.partition).second) << "key sent twice?";
    EXPECT_GT(r.timestamp_ms, 1600000000000);  // producer time, not -1
    if (last_offset.count(r.partition)) {
      EXPECT_GT(r.offset, last_offset[r.partition]) << "out of order";
    }
    last_offset[r.partition] = r.offset;
  }
  for (int i = 0; i < 1000; i++) EXPECT_TRUE(values.count(order_line(i))) << order_line(i);
}

TEST_F(KafkaReaderTest, ReadsExactlyASubRangeAndTheSameRecordsAgain) {
  KafkaReader reader(kafka(), "orders");
  auto marks = reader.watermarks();
  auto all = read_all(reader, everything(marks));
  ASSERT_GE(marks[1].high, 20);
  std::vector<PartitionRange> ranges{{1, 5, 17}, {2, 0, 1}, {0, 3, 3}};  // {0,3,3} is empty: skipped
  auto part = read_all(reader, ranges);
  std::map<std::pair<int32_t, int64_t>, std::string> expected;
  for (const auto& r : all)
    if ((r.partition == 1 && r.offset >= 5 && r.offset < 17) || (r.partition == 2 && r.offset == 0))
      expected[{r.partition, r.offset}] = r.value;
  ASSERT_EQ(part.size(), 13u);
  for (const auto& r : part) EXPECT_EQ(expected[std::make_pair(r.partition, r.offset)], r.value);
  // A replay of the same ranges (a restart after a crash) reads the same records.
  // (Partitions interleave differently from read to read; each partition's order is fixed.)
  auto again = read_all(reader, ranges);
  ASSERT_EQ(again.size(), part.size());
  for (const auto& r : again) EXPECT_EQ(expected[std::make_pair(r.partition, r.offset)], r.value);
}

TEST_F(KafkaReaderTest, PlannedBatchesReadEverythingOnce) {
  KafkaReader reader(kafka(), "orders");
  std::map<int32_t, int64_t> start, end;
  for (const auto& [partition, w] : reader.watermarks()) {
    start[partition] = w.low;
    end[partition] = w.high;
  }
  std::set<std::pair<int32_t, int64_t>> seen;
  auto batches = plan_batches(start, end, 150);
  EXPECT_EQ(batches.size(), 7u);
  for (const auto& batch : batches) {
    size_t before = seen.size();
    for (const auto& r : read_all(reader, batch)) EXPECT_TRUE(seen.insert({r.partition, r.offset}).second);
    EXPECT_LE(seen.size() - before, 150u);
  }
  EXPECT_EQ(seen.size(), 1000u);
}

TEST_F(KafkaReaderTest, OffsetsPastTheEndFailClearly) {
  KafkaReader reader(kafka(), "orders");
  int64_t high = reader.watermarks()[2].high;
  std::string message = testing::error_of([&] { read_all(reader, {{2, high + 500, high + 600}}); });
  EXPECT_NE(message.find("partition 2: offsets " + std::to_string(high + 500) + ".." + std::to_string(high + 600) +
                         " are not in topic orders (it ends at offset " + std::to_string(high)),
            std::string::npos)
      << message;
}

// A run's batches read on from one kept assignment. Between batches (while a batch is written)
// librdkafka fills each partition's queue up to its limit and stops fetching it; the next reads
// drain the queues and must get the fetcher going again. Every record comes once, in order.
TEST(KafkaReaderBatches, ReadOnAfterTheQueuesFilledUpBetweenBatches) {
  EmbeddedBroker broker({parse_topic_spec("orders:3")});
  KafkaSettings kafka{broker.bootstrap(), {}};
  std::stringstream lines;
  for (int i = 0; i < 12000; i++) lines << order_line(i) << "\n";
  ASSERT_EQ(produce_json_lines(kafka, "orders", "order_id", lines).delivered, 12000);

  // 1,500 records a batch: each partition queue holds at most 1,000 (the smallest limit).
  KafkaReader reader(kafka, "orders", 1500);
  std::map<int32_t, int64_t> start, end;
  for (const auto& [partition, w] : reader.watermarks()) {
    start[partition] = w.low;
    end[partition] = w.high;
  }
  std::map<int32_t, int64_t> next = start;
  int64_t total = 0;
  auto batches = plan_batches(start, end, 1500);
  ASSERT_GE(batches.size(), 8u);
  for (size_t b = 0; b < batches.size(); b++) {
    for (const auto& r : read_all(reader, batches[b])) {
      ASSERT_EQ(r.offset, next[r.partition]) << "partition " << r.partition << " in batch " << b;
      next[r.partition]++;
      total++;
    }
    for (const auto& range : batches[b]) EXPECT_EQ(next[range.partition], range.end) << "batch " << b;
    // The time a batch takes to write: the fetcher fills the queues and stops.
    if (b % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  EXPECT_EQ(total, 12000);
  // A range that does not continue the kept assignment (a replay) reassigns and reads exactly it.
  auto again = read_all(reader, batches[1]);
  int64_t expected = 0;
  for (const auto& range : batches[1]) expected += range.end - range.start;
  EXPECT_EQ(static_cast<int64_t>(again.size()), expected);
}

// A stream waiting to fill its batch pauses fetching (pause_fetching drops what librdkafka had
// fetched past the last read); records produced meanwhile, and the dropped ones, come after the
// pause once, in order, whether the reader is resumed explicitly or by the next read or wait.
TEST(KafkaReaderBatches, PausedBetweenBatchesReadsOnExactlyOnce) {
  EmbeddedBroker broker({parse_topic_spec("orders:3")});
  KafkaSettings kafka{broker.bootstrap(), {}};
  int produced = 0;
  auto produce = [&](int count) {
    std::stringstream lines;
    for (int i = 0; i < count; i++) lines << order_line(produced + i) << "\n";
    ASSERT_EQ(produce_json_lines(kafka, "orders", "order_id", lines).delivered, count);
    produced += count;
  };
  produce(3000);
  KafkaReader reader(kafka, "orders", 400);
  std::map<int32_t, int64_t> next;
  for (const auto& [partition, w] : reader.watermarks()) next[partition] = w.low;
  int64_t total = 0;
  // Reads on to the partitions' ends in batches of 400, each record checked to come next in
  // its partition, calling `after_batch` after each batch.
  auto read_to_the_end = [&](const std::string& when, const std::function<void()>& after_batch) {
    std::map<int32_t, int64_t> end;
    for (const auto& [partition, w] : reader.watermarks()) end[partition] = w.high;
    for (const auto& batch : plan_batches(next, end, 400)) {
      for (const auto& r : read_all(reader, batch)) {
        ASSERT_EQ(r.offset, next[r.partition]) << "partition " << r.partition << " " << when;
        next[r.partition]++;
        total++;
      }
      after_batch();
    }
  };
  for (int round = 0; round < 8; round++) {
    // Paused with records fetched past each batch (the queues fill while it is written). In odd
    // rounds it stays paused until the next read: the round's new records are produced while it is.
    read_to_the_end("in round " + std::to_string(round), [&] {
      reader.pause_fetching();
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      if (round % 2 == 0) reader.resume_fetching();
    });
    produce(250);
    if (round % 4 == 3) {  // an idle reader's wait resumes a paused one and keeps its record
      reader.pause_fetching();
      EXPECT_TRUE(reader.wait_for_records(next, 5000)) << "round " << round;
    }
  }
  read_to_the_end("at the end", [] {});
  EXPECT_EQ(total, produced);
  EXPECT_EQ(produced, 5000);
}

TEST(KafkaReaderRetention, TheDefaultRetentionKeepsMoreThanTheMocksOldFiveMiB) {
  EmbeddedBroker broker({parse_topic_spec("big")});
  KafkaSettings kafka{broker.bootstrap(), {}};
  std::string padding(1 << 20, 'x');
  std::stringstream lines;
  for (int i = 0; i < 8; i++) lines << "{\"n\": " << i << ", \"pad\": \"" << padding << "\"}\n";
  ASSERT_EQ(produce_json_lines(kafka, "big", "n", lines).delivered, 8);
  Watermarks w = KafkaReader(kafka, "big").watermarks()[0];
  EXPECT_EQ(w.low, 0);
  EXPECT_EQ(w.high, 8);
}

TEST(KafkaReaderRetention, RecordsDeletedByRetentionFailWithTheEarliestOffset) {
  // A broker that keeps 5 MiB per partition: 8 values of 1 MB push the first ones out.
  EmbeddedBroker broker({parse_topic_spec("big")}, 1, 5 << 20);
  KafkaSettings kafka{broker.bootstrap(), {}};
  std::string padding(1 << 20, 'x');
  std::stringstream lines;
  for (int i = 0; i < 8; i++) lines << "{\"n\": " << i << ", \"pad\": \"" << padding << "\"}\n";
  auto result = produce_json_lines(kafka, "big", "n", lines);
  ASSERT_EQ(result.delivered, 8) << result.first_error;

  KafkaReader reader(kafka, "big");
  Watermarks w = reader.watermarks()[0];
  EXPECT_EQ(w.high, 8);
  ASSERT_GT(w.low, 0) << "the mock kept every 1 MB record; retention did not happen";
  std::string message = testing::error_of([&] { read_all(reader, {{0, 0, 8}}); });
  EXPECT_EQ(message, "partition 0: offsets 0..8 are no longer in topic big (earliest now " + std::to_string(w.low) +
                         "): the data was deleted by retention or the topic was recreated");
  // What is still there reads whole.
  auto kept = read_all(reader, {{0, w.low, 8}});
  ASSERT_EQ(kept.size(), static_cast<size_t>(8 - w.low));
  EXPECT_GT(kept.back().value.size(), padding.size());
}

TEST(KafkaReaderReset, ResetEmptiesTopicsAndOldOffsetsFail) {
  EmbeddedBroker broker({parse_topic_spec("orders:2"), parse_topic_spec("customers")});
  std::string before = broker.bootstrap();
  std::stringstream lines;
  for (int i = 0; i < 10; i++) lines << order_line(i) << "\n";
  ASSERT_EQ(produce_json_lines({broker.bootstrap(), {}}, "orders", "order_id", lines).delivered, 10);

  broker.reset();
  EXPECT_NE(broker.bootstrap(), before);
  KafkaReader reader({broker.bootstrap(), {}}, "orders");
  EXPECT_EQ(reader.partitions(), (std::vector<int32_t>{0, 1}));
  for (const auto& [partition, w] : reader.watermarks()) EXPECT_EQ(w.high, 0) << "partition " << partition;
  std::string message = testing::error_of([&] { read_all(reader, {{1, 3, 9}}); });
  EXPECT_NE(message.find("partition 1: offsets 3..9 are not in topic orders (it ends at offset 0 now): the topic "
                         "was recreated"),
            std::string::npos)
      << message;
  KafkaReader customers({broker.bootstrap(), {}}, "customers");
  EXPECT_EQ(customers.partitions(), (std::vector<int32_t>{0}));
}

TEST(TopicSpec, Parses) {
  auto spec = parse_topic_spec("orders:3");
  EXPECT_EQ(spec.name, "orders");
  EXPECT_EQ(spec.partitions, 3);
  EXPECT_EQ(parse_topic_spec("shop.events").partitions, 1);
  EXPECT_NE(testing::error_of([] { parse_topic_spec("orders:three"); }).find("as in orders:3"), std::string::npos);
  EXPECT_NE(testing::error_of([] { parse_topic_spec("orders:0"); }).find("from 1 to 10000"), std::string::npos);
  EXPECT_NE(testing::error_of([] { parse_topic_spec("my topic"); }).find("letters, digits"), std::string::npos);
}

}  // namespace
}  // namespace lakestream
