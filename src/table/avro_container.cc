#include "table/avro_container.h"

#include <random>

namespace lakestream::delta {

void AvroEncoder::write_long(int64_t value) {
  uint64_t zigzag = (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (zigzag >= 0x80) {
    bytes_.push_back(static_cast<char>((zigzag & 0x7f) | 0x80));
    zigzag >>= 7;
  }
  bytes_.push_back(static_cast<char>(zigzag));
}

void AvroEncoder::write_bytes(std::string_view value) {
  write_long(static_cast<int64_t>(value.size()));
  bytes_.append(value);
}

void AvroEncoder::begin_items(size_t count) {
  if (count > 0) write_long(static_cast<int64_t>(count));
}

std::string avro_container_file(const std::string& schema_json, const std::map<std::string, std::string>& metadata,
                                const std::vector<std::string>& records) {
  // The sync marker only has to be unlikely inside the data; a fresh random one per file.
  std::random_device device;
  std::string sync(16, '\0');
  for (char& c : sync) c = static_cast<char>(device() & 0xff);

  std::map<std::string, std::string> header = metadata;
  header["avro.schema"] = schema_json;
  header["avro.codec"] = "null";
  AvroEncoder file;
  file.begin_items(header.size());  // the header's metadata: a map of bytes
  for (const auto& [key, value] : header) {
    file.write_string(key);
    file.write_bytes(value);
  }
  file.end_items();
  std::string out = std::string("Obj\x01", 4) + file.bytes() + sync;
  if (records.empty()) return out;
  std::string data;
  for (const auto& record : records) data += record;
  AvroEncoder block;
  block.write_long(static_cast<int64_t>(records.size()));
  block.write_long(static_cast<int64_t>(data.size()));
  return out + block.bytes() + data + sync;
}

}  // namespace lakestream::delta
