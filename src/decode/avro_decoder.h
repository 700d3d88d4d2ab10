// The Avro decoder: Kafka values in Confluent's wire format (magic byte 0, a 4-byte big-endian
// schema id, then the Avro binary body written with that schema) become rows of a table whose
// columns are the top-level fields of the writer schema. Bodies are decoded by avro-c; each
// record becomes a JSON object with one member per column, written in the form DuckDB's
// json_transform reads for the column's type, so that the ingest batch types every row in one
// SQL pass as it does for JSON sources (a decimal as its exact text, a timestamp in ISO-8601 UTC).
//
// Avro type          table type (Delta)        Avro type               table type (Delta)
// boolean            boolean                   int + date              date
// int, long          integer, long             long + timestamp-millis timestamp
// float, double      float, double             long + timestamp-micros timestamp
// string (+ uuid)    string                    bytes/fixed + decimal   decimal(p,s)
// bytes, fixed       binary                    enum                    string
// record             struct                    array, map              array, map (string keys)
// [null, T]          T, nullable               other unions            refused
#pragma once

#include <avro.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lakestream {

// A top-level field of a writer schema as a table column.
struct AvroColumn {
  std::string name;
  nlohmann::json delta_type;  // "long", "decimal(18,2)", {"type": "struct", ...}
  bool nullable = false;      // a union with null
  bool has_default = false;
};

// The header of a Confluent-framed value: the schema id and where the Avro body is. nullopt,
// with `reason` set, when the value is not framed that way (too short, wrong magic byte).
struct ConfluentFrame {
  int32_t schema_id = 0;
  const char* body = nullptr;
  size_t size = 0;
};
std::optional<ConfluentFrame> read_confluent_frame(const char* value, size_t size, std::string& reason);

class AvroTypes;  // the schema's named types and their table types (avro_decoder.cc)

// One writer schema, parsed, ready to decode the bodies written with it.
class AvroWriterSchema {
 public:
  // `schema_json` is the schema text the registry holds for `id`. Throws Error naming the id and
  // the field when the schema is not a record, or a field's type has no table type (a union of
  // two non-null types, a decimal over 38 digits).
  AvroWriterSchema(int32_t id, const std::string& schema_json);
  ~AvroWriterSchema();
  AvroWriterSchema(const AvroWriterSchema&) = delete;
  AvroWriterSchema& operator=(const AvroWriterSchema&) = delete;

  int32_t id() const { return id_; }
  const std::vector<AvroColumn>& columns() const { return columns_; }

  // Decodes `body` into `json_out` (a JSON object of the columns) and returns true; returns
  // false with `reason` set when the body is not a record of this schema (truncated, bytes left
  // over, a string that is not UTF-8, a decimal over its precision).
  bool decode(const char* body, size_t size, std::string& json_out, std::string& reason) const;

 private:
  int32_t id_;
  nlohmann::json schema_;  // the parsed JSON, for the logical types avro-c does not keep
  std::unique_ptr<AvroTypes> types_;  // refers into schema_
  avro_schema_t avro_schema_ = nullptr;
  avro_value_iface_t* iface_ = nullptr;
  std::vector<AvroColumn> columns_;
};

}  // namespace lakestream
