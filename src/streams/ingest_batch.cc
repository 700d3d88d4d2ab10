#include "streams/ingest_batch.h"

#include "decode/record_decoder.h"
#include "util/utf8.h"

namespace lakestream {

namespace {

constexpr const char* kRawTable = "ingest_raw";
constexpr const char* kDecodedTable = "ingest_decoded";

std::string field_list(const Source& source) {
  std::string fields;
  for (const auto& f : source.schema.fields) fields += sql::quote_ident(f.name) + ", ";
  return fields;
}

std::vector<std::pair<std::string, std::string>> fast_columns(const Source& source) {
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& f : source.schema.fields) columns.push_back({f.name, f.duckdb_type()});
  for (const auto& kafka_column : std::vector<std::pair<std::string, std::string>>{
           {"partition", "INTEGER"}, {"offset", "BIGINT"}, {"kafka_timestamp", "TIMESTAMPTZ"}, {"key", "VARCHAR"}})
    columns.push_back(kafka_column);
  return columns;
}

}  // namespace

IngestBatch::IngestBatch(sql::Connection& con, const Source& source)
    : con_(con),
      source_(source),
      decoder_(source),
      fast_(std::make_unique<sql::ChunkTable>(con, fast_columns(source))),
      kafka_columns_at_(source.schema.fields.size()) {
  con_.exec(std::string("CREATE OR REPLACE TEMP TABLE ") + kRawTable +
            " (partition INTEGER, \"offset\" BIGINT, kafka_timestamp TIMESTAMPTZ, key BLOB, value BLOB, utf8 BOOLEAN)");
  // DuckDB's allocator keeps up to 128 MiB (512 MiB after bulk frees) of freed memory for reuse;
  // given back after each task instead, peak memory follows the batch cap, not the backlog.
  con_.exec("SET allocator_flush_threshold = '8MiB'; SET allocator_bulk_deallocation_flush_threshold = '8MiB'");
  raw_ = std::make_unique<sql::Appender>(con_, kRawTable);
}

IngestBatch::~IngestBatch() {
  fast_.reset();
  raw_.reset();
  try {
    con_.exec(std::string("DROP TABLE IF EXISTS ") + kRawTable + "; DROP TABLE IF EXISTS " + kDecodedTable);
  } catch (...) {
    // The connection is going away with the failed run; nothing to keep.
  }
}

void IngestBatch::add(const KafkaRecord& r) {
  records_++;
  bool utf8 = (!r.key || is_valid_utf8(r.key, r.key_size)) && (!r.value || is_valid_utf8(r.value, r.value_size));
  // The gate the SQL decoder applies first (UTF-8, empty, too large) decides here too: such
  // records go to it for their reason.
  bool plain = utf8 && r.value && r.value_size > 0 && static_cast<int64_t>(r.value_size) <= source_.max_value_bytes;
  if (!plain || !decoder_.decode(std::string_view(r.value, r.value_size), *fast_)) {
    add_raw(r, utf8);
    return;
  }
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
  raw_->append_int32(r.partition);
  raw_->append_int64(r.offset);
  if (r.timestamp_ms >= 0) raw_->append_timestamp_us(r.timestamp_ms * 1000);
  else raw_->append_null();
  if (r.key) raw_->append_blob(r.key, r.key_size);
  else raw_->append_null();
  if (r.value) raw_->append_blob(r.value, r.value_size);
  else raw_->append_null();
  raw_->append_bool(utf8);
  raw_->end_row();
  declined_++;
}

void IngestBatch::finish() {
  raw_->flush();
  // Every batch is checked by the SQL decoder's rules; a batch of plain records has nothing
  // left for it (and skips compiling its statement).
  if (declined_ == 0) return;
  decode_records(con_, source_, kRawTable, kDecodedTable);
  quarantined_ = con_.scalar_int(std::string("SELECT count(*) FROM ") + kDecodedTable + " WHERE reason IS NOT NULL");
}

std::string IngestBatch::good_rows_sql() const {
  std::string columns = field_list(source_) + "partition, \"offset\", kafka_timestamp, key";
  std::string fast = "SELECT " + columns + " FROM " + fast_->scan_sql();
  if (declined_ == 0) return fast;
  return fast + " UNION ALL SELECT " + columns + " FROM " + kDecodedTable + " WHERE reason IS NULL";
}

std::string IngestBatch::quarantined_rows_sql() const {
  return std::string("SELECT partition, \"offset\", kafka_timestamp, key, value, reason FROM ") + kDecodedTable +
         " WHERE reason IS NOT NULL";
}

}  // namespace lakestream
