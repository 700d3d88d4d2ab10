// Amazon Kinesis Data Streams' API, as much as the ingest stream reads with: the shards of a
// stream, an iterator into one, and its records. JSON over HTTPS, signed with SigV4 by libcurl
// with the keys the S3 store resolves (storage/credentials.h); secrets never reach a message.
// Throttling (ProvisionedThroughputExceeded, LimitExceeded) is waited out with backoff here;
// every other refusal is a KinesisError carrying Kinesis's own error name.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"  // KinesisSettings
#include "util/error.h"

namespace lakestream {

// A refusal by Kinesis: `code` is its error name ("ExpiredIteratorException", ...).
class KinesisError : public Error {
 public:
  KinesisError(std::string code, const std::string& what) : Error(what), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

struct KinesisShard {
  std::string id;               // "shardId-000000000003"
  std::string parent;           // the shard it was split from or merged out of, if any
  std::string adjacent_parent;  // a merge's second parent, if any
  std::string first_sequence;   // the shard's starting sequence number
  std::string last_sequence;    // its ending one: set once the shard is closed (split or merged)
  bool closed() const { return !last_sequence.empty(); }
};

struct KinesisRecord {
  std::string sequence;       // decimal, up to 128 bits (in practice 56 digits)
  int64_t arrival_ms = -1;    // ApproximateArrivalTimestamp
  std::string partition_key;
  std::string data;           // the record's bytes, decoded from base64
};

struct KinesisRecords {
  std::vector<KinesisRecord> records;
  // Where the next read of the shard goes on; empty when the shard is closed and read to its end.
  std::string next_iterator;
  int64_t millis_behind_latest = 0;  // how far the last record read is behind the shard's tip
};

enum class IteratorStart { TrimHorizon, Latest, AtTimestamp, AtSequence, AfterSequence };

class KinesisClient {
 public:
  // Resolves the region, endpoint and keys: the source's settings, then AWS_REGION,
  // AWS_ENDPOINT_URL_KINESIS (AWS_ENDPOINT_URL), AWS_ACCESS_KEY_ID ... and the profile files.
  explicit KinesisClient(const KinesisSettings& settings);
  ~KinesisClient();
  KinesisClient(const KinesisClient&) = delete;
  KinesisClient& operator=(const KinesisClient&) = delete;

  // Every shard of the stream, open and closed (while its records are kept), in id order.
  std::vector<KinesisShard> list_shards();
  // An iterator into `shard` at `start`: `sequence` for AtSequence/AfterSequence, `timestamp_ms`
  // for AtTimestamp.
  std::string shard_iterator(const std::string& shard, IteratorStart start, const std::string& sequence = "",
                             int64_t timestamp_ms = 0);
  // Up to `limit` records (at most 10,000) from `iterator`.
  KinesisRecords get_records(const std::string& iterator, int limit);

  // For the benchmark's feed (users put records with their own producers): creates the stream
  // with `shards` shards and waits until it is active; puts (partition key, data) records, 500 to
  // a request, trying the ones Kinesis refused again.
  void create_stream(int shards);
  void put_records(const std::vector<std::pair<std::string, std::string>>& records);

  // How many requests Kinesis throttled and were waited out, since the client was made.
  int64_t throttled() const { return throttled_; }
  const std::string& stream() const { return stream_; }
  const std::string& endpoint() const { return endpoint_; }

  // "shardId-000000000003" -> 3, the number the shard's rows carry in bronze's `partition`; throws
  // Error for an id not of that form.
  static int32_t shard_number(const std::string& shard_id);

 private:
  std::string call(const std::string& operation, const std::string& body);

  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::string stream_;
  std::string endpoint_;
  int64_t throttled_ = 0;
};

// Compares two sequence numbers as the decimal numbers they are: <0, 0 or >0.
int compare_sequences(const std::string& a, const std::string& b);

// Kinesis serves 5 reads a second per shard: reads of one shard start this far apart at least.
inline constexpr std::chrono::milliseconds kKinesisReadSpacing{200};

// How long after the start of a read of a shard that returned `got` the shard may be read again:
// Kinesis serves 5 reads and 2 MB a second per shard, so kKinesisReadSpacing at least, and
// N / 2 MB seconds after a read of N bytes (data and partition keys). One read may return up to
// 10 MB; Kinesis then refuses the shard's reads for the seconds that follow.
std::chrono::steady_clock::duration read_spacing_after(const KinesisRecords& got);

}  // namespace lakestream
