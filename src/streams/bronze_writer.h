// Where an ingest batch's rows go, whatever the source (a Kafka topic or a Kinesis stream): the
// quarantine table first, then bronze, with the stream's derived columns, each commit once (a
// replay skips what is in). The ingest streams read; this writes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/planned_batch.h"  // OffsetRange
#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "streams/batch_report.h"
#include "streams/ingest_batch.h"
#include "table/commit_record.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"

namespace lakestream {

class BronzeWriter {
 public:
  // `last_partition`: where the bronze partition of the last batch is kept across the writers of
  // a continuous run's cycles (null: this writer keeps it).
  BronzeWriter(const Pipeline& pipeline, const Stream& stream, const Source& source,
               delta::LastPartition* last_partition = nullptr);

  const delta::Table& bronze() const { return bronze_; }
  const delta::Table& quarantine() const { return quarantine_; }

  // The columns of the source's fields bronze has now: those before the ingest columns.
  std::vector<delta::Column> field_columns() const;

  // Commits batch `id` of `records` (read into `con`) under `app_id`'s txn: the quarantined rows,
  // then the good ones, each commit carrying `record`. Fills `batch`'s already_committed; true
  // when bronze's commit was written by this call (false: a replay found it in).
  bool commit(sql::Connection& con, IngestBatch& records, const std::string& app_id, int64_t id,
              const CommitRecord& record, bool replay, BatchReport& batch);

  // Commits an ingest worker's batch of `records`, which read `ranges` (partition -> [start,
  // end)), with one txn per partition (sinks/partition_commit.h): the quarantined rows, then the
  // good ones, leaving out the offsets another owner of a partition committed meanwhile. Fills
  // `batch`'s batch_id with bronze's version (the rows' _batch_id) and already_committed.
  void commit_per_partition(sql::Connection& con, IngestBatch& records, const std::map<int32_t, OffsetRange>& ranges,
                            const CommitRecord& record, BatchReport& batch);

  // The stream's derived columns as a select list: ", (expression) AS name, ...", a day of an
  // instant (dt = "date(event_time)") computed without ICU (sql/utc_date.h).
  std::string derived_columns_sql() const;
  // The bronze schema: the source's fields and ingest's columns, then the derived columns typed
  // as DuckDB types their expressions in `select` (found once for each shape of the fields).
  std::vector<delta::Column> with_derived_columns(sql::Connection& con, const std::string& select,
                                                 const std::vector<delta::Column>& fields) const;

 private:
  const Pipeline& pipeline_;
  const Stream& stream_;
  const Source& source_;
  delta::Table bronze_;
  delta::Table quarantine_;
  delta::LastPartition own_last_partition_;
  delta::LastPartition* last_partition_;  // the kept one, else own_last_partition_
  // The derived columns' types and the fields they were found for (their schema string): finding them
  // is a DESCRIBE, a millisecond every batch would pay while the fields stay the same.
  mutable std::string derived_for_;
  mutable std::vector<delta::Column> derived_columns_;
};

}  // namespace lakestream
