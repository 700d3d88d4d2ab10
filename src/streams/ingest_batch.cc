#include "streams/ingest_batch.h"

#include <nlohmann/json.hpp>

#include "decode/avro_decoder.h"
#include "decode/debezium_envelope.h"
#include "decode/record_decoder.h"
#include "pipeline/bronze_layout.h"
#include "table/parquet_file.h"
#include "util/cpu_profile.h"
#include "util/utf8.h"

namespace lakestream {

namespace {

constexpr const char* kRawTable = "ingest_raw";
constexpr const char* kDecodedTable = "ingest_decoded";
constexpr const char* kAvroTable = "ingest_avro";
constexpr const char* kKinesisPositionsTable = "ingest_kinesis_positions";

std::string field_list(const std::vector<delta::Column>& columns) {
  std::string fields;
  for (const auto& c : columns) fields += sql::quote_ident(c.name) + ", ";
  return fields;
}

std::vector<std::pair<std::string, std::string>> fast_columns(const Source& source) {
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& f : source.schema.fields) columns.push_back({f.name, f.duckdb_type()});
  for (const auto& kafka : kafka_columns()) columns.push_back({kafka.name, kafka.duckdb_type()});
  return columns;
}

// The record as Kafka held it: partition, offset, kafka_timestamp, key, value.
void append_record(sql::Appender& out, const KafkaRecord& r) {
  out.append_int32(r.partition);
  out.append_int64(r.offset);
  if (r.timestamp_ms >= 0) out.append_timestamp_us(r.timestamp_ms * 1000);
  else out.append_null();
  if (r.key) out.append_blob(r.key, r.key_size);
  else out.append_null();
  if (r.value) out.append_blob(r.value, r.value_size);
  else out.append_null();
}

}  // namespace

IngestBatch::IngestBatch(sql::Connection& con, const Source& source, WriterSchemas* writer_schemas)
    : con_(con),
      source_(source),
      decoder_(source),
      fast_(std::make_unique<sql::ChunkTable>(con, fast_columns(source))),
      kafka_columns_at_(source.schema.fields.size()),
      change_events_(source.envelope == SourceEnvelope::Debezium),
      writer_schemas_(writer_schemas) {
  CpuScope cpu_scope("ingest_batch.new");
  for (const auto& f : source.schema.fields) field_columns_.push_back({f.name, f.delta_type(), true});
  // DuckDB's allocator keeps up to 128 MiB (512 MiB after bulk frees) of freed memory for reuse;
  // given back after each task instead, peak memory follows the batch cap, not the backlog. Set
  // once a connection: a statement each, a batch of a service would pay them every time.
  con_.keep_setting("allocator_flush_threshold", "8MiB");
  con_.keep_setting("allocator_bulk_deallocation_flush_threshold", "8MiB");
  if (writer_schemas_) {
    create_temporary_table(kAvroTable,
                           "partition INTEGER, \"offset\" BIGINT, kafka_timestamp TIMESTAMPTZ, key BLOB, value BLOB, "
                           "doc VARCHAR, reason VARCHAR");
    avro_ = std::make_unique<sql::Appender>(con_, kAvroTable);
  }
  if (source.is_kinesis()) {
    create_temporary_table(kKinesisPositionsTable,
                           "partition INTEGER, \"offset\" BIGINT, kinesis_shard_id VARCHAR, kinesis_sequence_number VARCHAR");
    kinesis_positions_ = std::make_unique<sql::Appender>(con_, kKinesisPositionsTable);
  }
}

IngestBatch::~IngestBatch() {
  CpuScope cpu_scope("ingest_batch.drop");
  fast_.reset();
  raw_.reset();
  avro_.reset();
  kinesis_positions_.reset();
  if (temporary_tables_.empty()) return;
  std::string drops;
  for (const auto& table : temporary_tables_) drops += "DROP TABLE IF EXISTS " + table + ";";
  try {
    con_.exec(drops);
  } catch (...) {
    // The connection is going away with the failed run; nothing to keep.
  }
}

void IngestBatch::create_temporary_table(const std::string& name, const std::string& columns) {
  con_.exec("CREATE OR REPLACE TEMP TABLE " + name + " (" + columns + ")");
  temporary_tables_.push_back(name);
}

sql::Appender& IngestBatch::raw() {
  if (!raw_) {
    create_temporary_table(kRawTable, std::string("partition INTEGER, \"offset\" BIGINT, kafka_timestamp TIMESTAMPTZ, "
                                                  "key BLOB, value BLOB, utf8 BOOLEAN") +
                                          (change_events_ ? ", doc VARCHAR, envelope_reason VARCHAR" : ""));
    raw_ = std::make_unique<sql::Appender>(con_, kRawTable);
  }
  return *raw_;
}

void IngestBatch::add(const KafkaRecord& r) {
  records_++;
  if (writer_schemas_) {
    add_avro(r);
    return;
  }
  if (change_events_) {
    add_change_event(r);
    return;
  }
  bool utf8 = (!r.key || is_valid_utf8(r.key, r.key_size)) && (!r.value || is_valid_utf8(r.value, r.value_size));
  // The gate the SQL decoder applies first (UTF-8, empty, too large) decides here too: such
  // records go to it for their reason.
  bool plain = utf8 && r.value && r.value_size > 0 && static_cast<int64_t>(r.value_size) <= source_.max_value_bytes;
  if (!plain || !decoder_.decode(std::string_view(r.value, r.value_size), *fast_)) {
    add_raw(r, utf8);
    return;
  }
  end_fast_row(r);
}

void IngestBatch::add_kinesis_position(const KafkaRecord& r, std::string_view shard_id, std::string_view sequence_number) {
  kinesis_positions_->append_int32(r.partition);
  kinesis_positions_->append_int64(r.offset);
  kinesis_positions_->append_text(shard_id.data(), shard_id.size());
  kinesis_positions_->append_text(sequence_number.data(), sequence_number.size());
  kinesis_positions_->end_row();
}

// The Kafka columns of the row the fast decoder has just filled.
void IngestBatch::end_fast_row(const KafkaRecord& r) {
  size_t c = kafka_columns_at_;
  fast_->set<int32_t>(c, r.partition);
  fast_->set<int64_t>(c + 1, r.offset);
  if (r.timestamp_ms >= 0) fast_->set<int64_t>(c + 2, r.timestamp_ms * 1000);
  else fast_->set_null(c + 2);
  if (r.key) fast_->set_text(c + 3, r.key, r.key_size);
  else fast_->set_null(c + 3);
  fast_->end_row();
}

void IngestBatch::add_raw(const KafkaRecord& r, bool utf8) {
  sql::Appender& out = raw();
  append_record(out, r);
  out.append_bool(utf8);
  if (change_events_) {
    out.append_null();
    out.append_null();
  }
  out.end_row();
  declined_++;
}

// A Debezium change event: its row goes the way a plain event does (the fast decoder, else the
// SQL decoder with the row as its document); a tombstone is counted and skipped; a value that
// is no change event goes to the SQL decoder with the reason, to be quarantined as it was sent.
void IngestBatch::add_change_event(const KafkaRecord& r) {
  if (!r.value) {
    tombstones_++;
    return;
  }
  bool utf8 = (!r.key || is_valid_utf8(r.key, r.key_size)) && is_valid_utf8(r.value, r.value_size);
  if (!utf8 || r.value_size == 0 || static_cast<int64_t>(r.value_size) > source_.max_value_bytes) {
    add_raw(r, utf8);  // the SQL decoder's gate gives the reason
    return;
  }
  std::string reason;
  ChangeEvent event = read_change_event(std::string_view(r.value, r.value_size), change_row_, reason);
  if (event == ChangeEvent::Tombstone) {
    tombstones_++;
    return;
  }
  if (event == ChangeEvent::Row && decoder_.decode(change_row_, *fast_)) {
    end_fast_row(r);
    return;
  }
  sql::Appender& out = raw();
  append_record(out, r);
  out.append_bool(true);
  if (event == ChangeEvent::Row) {
    out.append_text(change_row_);
    out.append_null();
  } else {
    out.append_null();
    out.append_text(reason);
  }
  out.end_row();
  declined_++;
}

void IngestBatch::add_avro(const KafkaRecord& r) {
  std::string reason;
  bool decoded = false;
  if (change_events_ && !r.value) {
    tombstones_++;
    return;
  }
  if (!r.value || r.value_size == 0) {
    reason = "empty value";
  } else if (static_cast<int64_t>(r.value_size) > source_.max_value_bytes) {
    reason = "value is " + std::to_string(r.value_size) + " bytes, over max_value_bytes = " +
             std::to_string(source_.max_value_bytes);
  } else if (auto frame = read_confluent_frame(r.value, r.value_size, reason)) {
    const AvroWriterSchema* writer = writer_schemas_->schema(frame->schema_id);
    if (!writer)
      reason = "unknown schema id " + std::to_string(frame->schema_id) + ": the schema registry at " +
               writer_schemas_->registry_url() + " has no schema with that id";
    else
      decoded = writer->decode(frame->body, frame->size, avro_doc_, reason);
  }
  // Debezium's Avro envelope, decoded to JSON as any record is: its row is read out of it as
  // out of the JSON envelope.
  if (decoded && change_events_) {
    ChangeEvent event = read_change_event(avro_doc_, change_row_, reason);
    if (event == ChangeEvent::Tombstone) {
      tombstones_++;
      return;
    }
    decoded = event == ChangeEvent::Row;
    if (decoded) avro_doc_.swap(change_row_);
  }
  append_record(*avro_, r);
  if (decoded) {
    avro_->append_text(avro_doc_);
    avro_->append_null();
  } else {
    avro_->append_null();
    avro_->append_text(reason);
    quarantined_++;
  }
  avro_->end_row();
  declined_++;
}

// Types every decoded row in one pass: json_transform reads each member as its column's type.
void IngestBatch::finish_avro() {
  avro_->flush();
  field_columns_ = writer_schemas_->columns();
  nlohmann::json structure = nlohmann::json::object();
  for (const auto& column : field_columns_) structure[column.name] = delta::duckdb_type_of(column.type);
  std::string fields;
  for (const auto& column : field_columns_)
    fields += "avro_row." + sql::quote_ident(column.name) + " AS " + sql::quote_ident(column.name) + ", ";
  if (field_columns_.empty()) structure["_"] = "BOOLEAN";  // json_transform needs a member
  temporary_tables_.push_back(kDecodedTable);
  con_.exec(std::string("CREATE OR REPLACE TEMP TABLE ") + kDecodedTable + " AS SELECT " + fields +
            "partition, \"offset\", kafka_timestamp, coalesce(try(decode(key)), key::VARCHAR) AS key, value, reason "
            "FROM (SELECT *, CASE WHEN reason IS NULL THEN json_transform(doc, " + sql::quote_literal(structure.dump()) +
            ") END AS avro_row FROM " + kAvroTable + ")");
}

void IngestBatch::finish() {
  if (kinesis_positions_) kinesis_positions_->flush();
  if (writer_schemas_) {
    finish_avro();
    return;
  }
  // Every batch is checked by the SQL decoder's rules; a batch of plain records has nothing
  // left for it (and skips compiling its statement).
  if (declined_ == 0) return;
  raw_->flush();
  temporary_tables_.push_back(kDecodedTable);
  decode_records(con_, source_, kRawTable, kDecodedTable);
  quarantined_ = con_.scalar_int(std::string("SELECT count(*) FROM ") + kDecodedTable + " WHERE reason IS NOT NULL");
}

std::string IngestBatch::good_rows_sql() const {
  std::string fields = field_list(field_columns_);
  std::string columns = fields + "partition, \"offset\", kafka_timestamp, key";
  std::string rows;
  if (writer_schemas_) {
    rows = "SELECT " + columns + " FROM " + kDecodedTable + " WHERE reason IS NULL";
  } else {
    rows = "SELECT " + columns + " FROM " + fast_->scan_sql();
    if (declined_ > 0) rows += " UNION ALL SELECT " + columns + " FROM " + kDecodedTable + " WHERE reason IS NULL";
  }
  return kinesis_positions_ ? with_kinesis_position(rows, fields, "") : rows;
}

std::string IngestBatch::quarantined_rows_sql() const {
  std::string rows = std::string("SELECT partition, \"offset\", kafka_timestamp, key, value, reason FROM ") +
                     kDecodedTable + " WHERE reason IS NOT NULL";
  return kinesis_positions_ ? with_kinesis_position(rows, "", ", value, reason") : rows;
}

std::string IngestBatch::with_kinesis_position(const std::string& rows_sql, const std::string& fields,
                                               const std::string& rest) const {
  return "SELECT " + fields + "partition, \"offset\", kafka_timestamp AS kinesis_arrival_timestamp, key, "
         "kinesis_shard_id, kinesis_sequence_number" + rest + " FROM (" + rows_sql + ") JOIN " + kKinesisPositionsTable +
         " USING (partition, \"offset\")";
}

}  // namespace lakestream
