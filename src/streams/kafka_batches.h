// An ingest stream's batches of a Kafka topic, read and written the same way however the stream
// runs (planned by its checkpoint: ingest_stream.cc; as a worker of a consumer group:
// ingest_worker.cc): each batch is read from its offsets into its own DuckDB connection (decoded,
// its bad records set apart, the last record of each partition kept for the plan), then written
// to quarantine and bronze through bronze_writer.h, and its offsets copied to the consumer group.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/planned_batch.h"
#include "source/group_membership.h"
#include "source/kafka_reader.h"
#include "streams/bronze_writer.h"
#include "streams/ingest_batch.h"
#include "streams/stream_context.h"
#include "streams/topic_positions.h"
#include "streams/writer_schemas.h"

namespace lakestream {

// A batch read from Kafka into its DuckDB connection, to be written.
struct KafkaBatch {
  int64_t id;  // the planned batch's id (-1: a worker's, whose id is bronze's version)
  Offsets start, end;
  std::vector<DataLoss> data_loss;
  std::map<int32_t, LastRead> last_read;  // the last record read per partition, of those it read
  std::unique_ptr<IngestBatch> records;
  sql::Connection& con;
  BatchReport report;
  std::chrono::steady_clock::time_point started;
  std::optional<int64_t> oldest_timestamp_ms;    // the oldest Kafka timestamp read, if any
  std::map<int32_t, OffsetRange> worker_ranges;  // a worker's: the partitions it commits, and their ranges
};

class KafkaBatches {
 public:
  KafkaBatches(StreamContext& ctx, const Source& source, std::shared_ptr<KafkaReader> reader);

  KafkaReader& reader() { return *reader_; }
  const BronzeWriter& writer() const { return writer_; }
  // Where the stream stands in the topic, and the gaps found there.
  TopicPositions& positions() { return positions_; }
  // The stream's report, to which each batch is added.
  StreamReport& report() { return report_; }

  // The topic's end offsets as the run saw them last (each batch's latestOffset).
  void saw_latest(const Offsets& latest) { latest_ = latest; }

  // Reads the records from `start` to `end` (per partition) into `con`, as batch `id`.
  std::unique_ptr<KafkaBatch> read(int64_t id, const Offsets& start, const Offsets& end,
                                   const std::vector<DataLoss>& data_loss, bool replay, sql::Connection& con);

  // Writes a read batch: its quarantine and bronze commits under the stream's txn `app_id`, each
  // once (a replay skips what is in), or, with `group` (a worker), under a txn per partition of
  // its worker_ranges (rows another owner committed meanwhile are left out); then the consumer
  // group's copy of its offsets. A planned run calls it on its writer thread while the next
  // batch is read.
  void write(KafkaBatch& batch, const std::string& app_id, GroupMembership* group);

 private:
  StreamContext& ctx_;
  const Source& source_;
  std::shared_ptr<KafkaReader> reader_;
  BronzeWriter writer_;
  TopicPositions positions_;
  std::unique_ptr<WriterSchemas> writer_schemas_;  // Avro sources only
  Offsets latest_;
  StreamReport report_;
};

}  // namespace lakestream
