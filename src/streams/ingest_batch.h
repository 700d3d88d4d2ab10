// One micro-batch of the ingest stream inside DuckDB: every Kafka record goes either straight to
// typed rows (the fast decoder: plain, well-formed JSON, nearly all of a topic) or, raw, to the
// SQL decoder, which decodes or quarantines the rest with its reasons. The typed rows are held
// as DuckDB data chunks (sql::ChunkTable), the SQL decoder's in temporary tables; the batch's
// Parquet files are written from both. An Avro source's records are decoded by their writer
// schemas into JSON rows that one SQL pass types, or quarantined with the reason.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "decode/fast_decoder.h"
#include "pipeline/pipeline.h"
#include "source/kafka_reader.h"
#include "sql/chunk_table.h"
#include "sql/duckdb.h"
#include "streams/writer_schemas.h"
#include "table/delta_table.h"

namespace lakestream {

class IngestBatch {
 public:
  // Creates the batch's chunk table; the SQL decoder's temporary tables are made (replacing) when
  // a record first needs them: a batch of plain JSON, nearly every batch, has none.
  // `writer_schemas`: for an Avro source, the run's writer schemas (outliving the batch).
  IngestBatch(sql::Connection& con, const Source& source, WriterSchemas* writer_schemas = nullptr);
  // Drops the temporary tables it made.
  ~IngestBatch();
  IngestBatch(const IngestBatch&) = delete;
  IngestBatch& operator=(const IngestBatch&) = delete;

  void add(const KafkaRecord& record);
  // A Kinesis source's record also gives its shard's id and its sequence number (bronze keeps
  // both): called with add() for each record.
  void add_kinesis_position(const KafkaRecord& record, std::string_view shard_id, std::string_view sequence_number);
  // After the last add: decodes the records the fast path declined.
  void finish();

  int64_t records() const { return records_; }
  // After finish(): the table columns of the source's fields in this batch (an Avro source's
  // grow with its writer schemas).
  const std::vector<delta::Column>& field_columns() const { return field_columns_; }
  int64_t quarantined() const { return quarantined_; }
  // Records of a Debezium source with no change event (Kafka tombstones): skipped, counted here.
  int64_t tombstones() const { return tombstones_; }
  // The batch's good rows: the schema's fields, then the source's columns (source_columns() in
  // pipeline/bronze_layout.h: partition, "offset", kafka_timestamp, key of a Kafka topic).
  std::string good_rows_sql() const;
  // Its quarantined rows: the source's columns, value, reason (only when quarantined() > 0: a
  // batch the fast path took whole has no decoded table).
  std::string quarantined_rows_sql() const;

 private:
  // The SQL decoder's input, made at the first record the fast path declines.
  sql::Appender& raw();
  // Makes (replacing) the temporary table `name` of `columns` and drops it with the batch.
  void create_temporary_table(const std::string& name, const std::string& columns);
  void add_raw(const KafkaRecord& record, bool utf8);
  void add_change_event(const KafkaRecord& record);
  void end_fast_row(const KafkaRecord& record);
  void add_avro(const KafkaRecord& record);
  void finish_avro();
  // A Kinesis source's rows out of `rows_sql` (the Kafka columns, then `rest`): its arrival time
  // renamed and its shard id and sequence number joined on.
  std::string with_kinesis_position(const std::string& rows_sql, const std::string& fields, const std::string& rest) const;

  sql::Connection& con_;
  const Source& source_;
  FastDecoder decoder_;
  std::unique_ptr<sql::ChunkTable> fast_;
  std::unique_ptr<sql::Appender> raw_;
  std::unique_ptr<sql::Appender> kinesis_positions_;  // a Kinesis source's: shard id and sequence number
  size_t kafka_columns_at_;  // the column of `partition` in the fast table
  int64_t records_ = 0;
  int64_t declined_ = 0;  // records the fast path left to the SQL decoder
  int64_t quarantined_ = 0;
  int64_t tombstones_ = 0;
  // A Debezium source: the raw table also holds each record's row (doc) or why it has none.
  bool change_events_;
  std::string change_row_;  // reused for each record
  WriterSchemas* writer_schemas_;
  std::unique_ptr<sql::Appender> avro_;  // Avro: every record, with its JSON row or its reason
  std::string avro_doc_;                 // reused for each record
  std::vector<delta::Column> field_columns_;
  std::vector<std::string> temporary_tables_;  // made for this batch, dropped with it
};

}  // namespace lakestream
