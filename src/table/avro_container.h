// Avro object container files as the Avro specification writes them ("Object Container Files",
// binary encoding, the null codec): what Iceberg's manifests and manifest lists are. The records
// are encoded by the caller with AvroEncoder, field by field in the schema's order; nothing here
// checks them against the schema, so each writer keeps its schema and its encoder side by side.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace lakestream::delta {

// Appends values in Avro's binary encoding.
class AvroEncoder {
 public:
  void write_long(int64_t value);  // zig-zag varint; an Avro int is encoded the same way
  void write_int(int32_t value) { write_long(value); }
  void write_boolean(bool value) { bytes_.push_back(value ? 1 : 0); }
  void write_bytes(std::string_view value);  // length, then the bytes; a string is encoded the same way
  void write_string(std::string_view value) { write_bytes(value); }
  // Bytes already in Avro's encoding (a double's 8 bytes, little-endian).
  void write_raw(std::string_view bytes) { bytes_.append(bytes); }
  // A union's branch (0-based), to be followed by its value (nothing for null).
  void write_union_branch(int branch) { write_long(branch); }
  // An array or map of `count` items: its one block's count (none when empty), the items written
  // after it by the caller, then end_items().
  void begin_items(size_t count);
  void end_items() { write_long(0); }

  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// The file's bytes: the header (magic, `metadata` plus avro.schema = `schema_json` and
// avro.codec = null, a sync marker), then `records` (each encoded alone) in one block.
std::string avro_container_file(const std::string& schema_json, const std::map<std::string, std::string>& metadata,
                                const std::vector<std::string>& records);

}  // namespace lakestream::delta
