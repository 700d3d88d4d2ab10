// The record of a planned micro-batch: batches/<N>.json in the stream's checkpoint, written
// before batch N reads anything, so that a rerun after a crash replays exactly that input. This
// file is the only one that knows the record's bytes (encode/decode, as LevelDB's VersionEdit);
// everything else reads the typed fields. On disk (JSON, unchanged since the first release):
//   ingest:          {"start": {"<partition>": offset, ...}, "end": {...}, "dataLoss": [...]?,
//                     "lastRead": {"<partition>": {"offset": o, "timestamp": ms, "fingerprint": hex}}?}
//   latest, window:  {"from": version, "to": version, "noData": true?}
//   Kinesis ingest:  {"kinesis": {"<shard id>": {"start": n, "end": n, "first": seq?, "last": seq?,
//                                                "position": seq?, "finished": true?, "fromMs": ms?}},
//                     "dataLoss": [...]?}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "table/commit_record.h"  // DataLoss, OffsetRange

namespace lakestream {

// The last record a stream read in a partition, up to and including some batch: where it was and
// its fingerprint (source/record_fingerprint.h). A later run trusts the partition's position only
// while the record at `offset` still has that fingerprint (a topic deleted and created again
// starts its offsets over with other records).
struct LastRead {
  int64_t offset = -1;
  int64_t timestamp_ms = -1;
  std::string fingerprint;
};

// An ingest batch's input: per partition, the offsets it reads.
struct KafkaInput {
  OffsetRanges partitions;
  std::vector<DataLoss> data_loss;
  // Per partition, the last record read up to the end of this batch (by it or by a batch before);
  // a partition with no record read yet has none. Plans written before this was kept have none.
  std::map<int32_t, LastRead> last_read;

  std::map<int32_t, int64_t> start_offsets() const;
  std::map<int32_t, int64_t> end_offsets() const;
};

// One shard's part of a Kinesis ingest batch, and where the stream stands in the shard after it.
struct ShardRead {
  // The records the batch reads: sequence numbers `first` to `last`, both inclusive, numbered
  // [start, end) in bronze's offset column (the shard's records in the order read, from 0 for its
  // first). A shard the batch reads nothing of has start = end and no first and last.
  int64_t start = 0;
  int64_t end = 0;
  std::string first, last;
  // After the batch: the last sequence number read in the shard (empty: none yet), and whether the
  // shard is closed and read to its end (its children may be read).
  std::string position;
  bool finished = false;
  // A shard not read yet that starts at a time (starting_position latest or a time): that time.
  std::optional<int64_t> from_ms;
  bool reads() const { return end > start; }
};

// A Kinesis ingest batch's input: every shard the stream knows, by id, and the gaps it stepped
// over (partition: the shard's number; offsets: its records' numbers).
struct KinesisInput {
  std::map<std::string, ShardRead> shards;
  std::vector<DataLoss> data_loss;
};

// A latest or window batch's input: the versions [from, to] of its source table. A batch with
// no data (a window stream's trailing batch, run because the watermark moved) reads none: its
// `to` is the last version read before, and `from` = to + 1.
struct TableInput {
  int64_t from = 0;
  int64_t to = -1;
  bool no_data = false;
};

struct PlannedBatch {
  int64_t id = -1;
  std::variant<KafkaInput, TableInput, KinesisInput> input;

  // The input of the kind the stream plans; throws Error ("the checkpoint ... is damaged") when
  // the record holds the other kind.
  const KafkaInput& kafka() const;
  const TableInput& table() const;
  const KinesisInput& kinesis() const;
};

// The record's bytes, as batches/<N>.json holds them.
std::string encode_planned_batch(const PlannedBatch& batch);
// The batch `id` from its record's bytes; throws Error naming `file` when they are not a
// planned batch.
PlannedBatch decode_planned_batch(int64_t id, const std::string& text, const std::string& file);

}  // namespace lakestream
