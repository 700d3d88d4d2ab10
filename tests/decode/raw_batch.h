// Test helpers for the decoder: a raw-records table shaped as the ingest stream fills it, built
// with plain SQL (bytes go in as hex, so any byte sequence can be a key or a value), and the
// shop-like schema the tests decode with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "support/test_support.h"  // hex_bytes

namespace lakestream::testing {

// The raw table of one micro-batch; offsets count from 0 in the order records are added.
class RawBatch {
 public:
  explicit RawBatch(sql::Connection& con, std::string table = "raw") : con_(con), table_(std::move(table)) {
    con_.exec("CREATE OR REPLACE TABLE " + sql::quote_ident(table_) +
              " (partition INTEGER, \"offset\" BIGINT, kafka_timestamp TIMESTAMPTZ, key BLOB, value BLOB,"
              " utf8 BOOLEAN)");
  }

  // Adds one record (nullopt: a Kafka NULL) and returns its offset. utf8 is computed as the
  // ingest stream does: both key and value valid UTF-8.
  int64_t add(const std::optional<std::string>& value, const std::optional<std::string>& key = "k") {
    int64_t offset = next_offset_++;
    auto blob = [](const std::optional<std::string>& b) {
      return b ? "from_hex('" + hex_bytes(*b) + "')" : std::string("NULL::BLOB");
    };
    con_.exec("INSERT INTO " + sql::quote_ident(table_) + " SELECT " + std::to_string(offset % 3) + ", " +
              std::to_string(offset) + ", TIMESTAMPTZ '2026-10-01 10:00:00+00', k, v,"
              " (k IS NULL OR try(decode(k)) IS NOT NULL) AND (v IS NULL OR try(decode(v)) IS NOT NULL)"
              " FROM (SELECT " + blob(key) + " AS k, " + blob(value) + " AS v)");
    return offset;
  }

 private:
  sql::Connection& con_;
  std::string table_;
  int64_t next_offset_ = 0;
};

inline Field field(const std::string& name, FieldType type, bool required = false, int precision = 0,
                   int scale = 0) {
  Field f;
  f.name = name;
  f.type = type;
  f.required = required;
  f.precision = precision;
  f.scale = scale;
  return f;
}

// The shop's order events, plus one field of each remaining type and a name that needs quoting.
inline Source orders_source() {
  Source source;
  source.name = "orders";
  source.topic = "orders";
  source.schema.fields = {
      field("order_id", FieldType::BigInt, true),
      field("customer_id", FieldType::String, true),
      field("status", FieldType::String),
      field("amount", FieldType::Decimal, true, 18, 2),
      field("event_time", FieldType::Timestamp, true),
      field("quantity", FieldType::Int),
      field("price", FieldType::Double),
      field("gift", FieldType::Boolean),
      field("ship to/\"city\".name", FieldType::String),
  };
  return source;
}

// A good order event; `extra` is spliced in before the closing brace (starting with a comma).
inline std::string order_json(int64_t id, const std::string& extra = "") {
  return "{\"order_id\":" + std::to_string(id) +
         ",\"customer_id\":\"C01\",\"status\":\"placed\",\"amount\":25.00,"
         "\"event_time\":\"2026-10-01T09:05:00Z\"" + extra + "}";
}

}  // namespace lakestream::testing
