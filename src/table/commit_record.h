// What lakestream says of its own commits: commitInfo.lakestream, written by every stream (and
// recount) into each commit it makes, and read back by check, the checkpoint's guards and the
// bench. This file is the only one that knows the record's JSON (encode/decode, as the planned
// batch's record does); everything else reads the typed fields. On disk (unchanged since the
// first release; every field but `stream` is optional):
//   {"lakestream": {"stream": name, "batchId": n,
//                   "source": {"topic": t, "startOffsets": {"<partition>": offset}, "endOffsets": {...}}
//                           | {"table": t, "fromVersion": v, "toVersion": v},
//                   "dataLoss": [{"partition": p, "readUpTo": o, "continuedFrom": o?, "reason": r}],
//                   "group": consumer group, "watermark": us, "sourceVersion": v,
//                   "sourceMaxBatchId": n, "recount": true}}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lakestream {

// A gap in a partition that fail_on_data_loss = false let the stream step over; recorded by the
// first batch after it (in its plan, then in its bronze commit, where check finds it).
struct DataLoss {
  int32_t partition = 0;
  int64_t read_up_to = 0;                 // the offset the stream had read to
  std::optional<int64_t> continued_from;  // where it went on; none when the partition is gone
  std::string reason;                     // "went back", "recreated", "aged out" or "partition gone"
  bool operator==(const DataLoss&) const = default;
};

// Offsets [start, end) of one Kafka partition: what a batch reads of it. The one definition of
// the range: the batch plan (source/batch_plan.h), the planned batch's record
// (checkpoint/planned_batch.h) and the bronze commit's record (here) all hold it.
struct OffsetRange {
  int64_t start = 0;
  int64_t end = 0;
  int64_t size() const { return end - start; }
  bool operator==(const OffsetRange&) const = default;
};

// A batch's ranges, by partition.
using OffsetRanges = std::map<int32_t, OffsetRange>;

// Their first offsets, and the offsets after their last, by partition (as the records spell them).
std::map<int32_t, int64_t> start_offsets(const OffsetRanges& ranges);
std::map<int32_t, int64_t> end_offsets(const OffsetRanges& ranges);

// The ranges from start and end offsets by partition: a partition missing from `start` starts at
// 0, one missing from `end` reads nothing (it ends where it starts).
OffsetRanges offset_ranges(const std::map<int32_t, int64_t>& start, const std::map<int32_t, int64_t>& end);

// What an ingest batch read from Kafka.
struct KafkaRead {
  std::string topic;
  OffsetRanges ranges;
  bool operator==(const KafkaRead&) const = default;
};

// What a batch of a stream reading a table read: its versions, both inclusive.
struct TableRead {
  std::string table;
  int64_t from_version = 0;
  int64_t to_version = 0;
  bool operator==(const TableRead&) const = default;
};

struct CommitRecord {
  std::string stream;                          // empty in a recount's commit
  std::optional<int64_t> batch_id;             // in bronze also the rows' _batch_id
  std::optional<KafkaRead> kafka;              // an ingest stream's commits
  std::optional<TableRead> table;              // a latest stream's commits
  std::vector<DataLoss> data_loss;             // the gaps this batch stepped over
  std::optional<std::string> group;            // ingest workers' consumer group
  std::optional<int64_t> watermark_us;         // a window stream's watermark after the batch
  std::optional<int64_t> source_version;       // the last source version a window stream read
  std::optional<int64_t> source_max_batch_id;  // the newest source batch the written windows had seen
  bool recount = false;                        // written by `lakestream recount`
  bool operator==(const CommitRecord&) const = default;
};

// {"lakestream": {...}}: the part of commitInfo the record fills.
nlohmann::json commit_info_json(const CommitRecord& record);

// The record in a commit's commitInfo; none when the commit is not lakestream's.
std::optional<CommitRecord> commit_record_of(const nlohmann::json& commit_info);

// Offsets per partition as the records (and the progress records) show them: {"<partition>": offset}.
nlohmann::json offsets_json(const std::map<int32_t, int64_t>& offsets);
std::map<int32_t, int64_t> offsets_of(const nlohmann::json& j);

// The gaps as commitInfo.lakestream.dataLoss (and the planned batch's record) hold them.
nlohmann::json data_loss_json(const std::vector<DataLoss>& gaps);
std::vector<DataLoss> data_loss_of(const nlohmann::json& gaps);

}  // namespace lakestream
