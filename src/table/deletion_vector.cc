// Reading deletion vectors as PROTOCOL.md lays them out ("Deletion Vector Format"):
//   file:       version byte 1, then per vector: size (u32 big-endian), the serialized vector,
//               CRC-32 of it (u32 big-endian); a descriptor's offset points at the size.
//   serialized: magic number 1681511377 (i32 little-endian), the bitmap count (i64 LE), then per
//               bitmap its high 32 bits (u32 LE) and a 32-bit Roaring bitmap in the portable format
//               of RoaringFormatSpec (array, bitset and run containers).
//   row index:  (high << 32) | low.
#include "table/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <list>
#include <map>
#include <memory>
#include <mutex>

#include <nlohmann/json.hpp>

#include "table/path_encoding.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

constexpr const char* kZ85Alphabet =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";
constexpr uint32_t kMagic = 1681511377;
constexpr uint32_t kCookieNoRuns = 12346;
constexpr uint32_t kCookieWithRuns = 12347;
constexpr uint32_t kMaxArrayCardinality = 4096;
constexpr size_t kUuidZ85Length = 20;
constexpr size_t kRememberedVectors = 4096;

// Little-endian reads from a byte string, each checked against its end.
class ByteReader {
 public:
  ByteReader(const std::string& bytes, std::string where) : bytes_(bytes), where_(std::move(where)) {}

  uint64_t little(size_t width) {
    need(width);
    uint64_t value = 0;
    for (size_t i = 0; i < width; i++) value |= static_cast<uint64_t>(static_cast<uint8_t>(bytes_[at_ + i])) << (8 * i);
    at_ += width;
    return value;
  }
  void skip(size_t width) {
    need(width);
    at_ += width;
  }
  bool at_end() const { return at_ == bytes_.size(); }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error("the deletion vector " + where_ + " is damaged: " + what +
                "; the table cannot be read right without it. Restore the file from a backup, or ask its writer");
  }

 private:
  void need(size_t width) const {
    if (bytes_.size() - at_ < width) fail("it ends after " + std::to_string(bytes_.size()) + " bytes, in the middle of a value");
  }
  const std::string& bytes_;
  std::string where_;
  size_t at_ = 0;
};

// One 32-bit Roaring bitmap in the portable format; its values, ORed with `high`, go to `rows`.
void read_roaring32(ByteReader& in, uint64_t high, std::vector<uint64_t>& rows) {
  uint32_t cookie = static_cast<uint32_t>(in.little(4));
  uint32_t containers = 0;
  std::vector<uint8_t> is_run;
  bool has_runs = (cookie & 0xFFFF) == kCookieWithRuns;
  if (has_runs) {
    containers = (cookie >> 16) + 1;
    is_run.resize(containers);
    for (uint32_t byte = 0; byte < (containers + 7) / 8; byte++) {
      uint8_t bits = static_cast<uint8_t>(in.little(1));
      for (uint32_t bit = 0; bit < 8 && byte * 8 + bit < containers; bit++) is_run[byte * 8 + bit] = (bits >> bit) & 1;
    }
  } else if (cookie == kCookieNoRuns) {
    containers = static_cast<uint32_t>(in.little(4));
    if (containers > 65536) in.fail("a bitmap says it has " + std::to_string(containers) + " containers (at most 65536)");
    is_run.assign(containers, 0);
  } else {
    in.fail("a bitmap starts with " + std::to_string(cookie) + ", not a Roaring cookie (12346 or 12347)");
  }
  std::vector<uint32_t> keys(containers), cardinalities(containers);
  for (uint32_t i = 0; i < containers; i++) {
    keys[i] = static_cast<uint32_t>(in.little(2));
    cardinalities[i] = static_cast<uint32_t>(in.little(2)) + 1;
  }
  // The offsets header: present without run containers, or with 4 containers or more.
  if (!has_runs || containers >= 4) in.skip(4 * static_cast<size_t>(containers));
  for (uint32_t i = 0; i < containers; i++) {
    uint64_t base = (high << 32) | (static_cast<uint64_t>(keys[i]) << 16);
    size_t before = rows.size();
    if (is_run[i]) {
      uint32_t runs = static_cast<uint32_t>(in.little(2));
      for (uint32_t r = 0; r < runs; r++) {
        uint32_t start = static_cast<uint32_t>(in.little(2));
        uint32_t length = static_cast<uint32_t>(in.little(2));
        if (start + length > 0xFFFF) in.fail("a run passes the end of its container");
        for (uint32_t v = start; v <= start + length; v++) rows.push_back(base | v);
      }
    } else if (cardinalities[i] > kMaxArrayCardinality) {
      for (uint32_t word = 0; word < 1024; word++) {
        uint64_t bits = in.little(8);
        while (bits) {
          int bit = __builtin_ctzll(bits);
          rows.push_back(base | (word * 64 + static_cast<uint32_t>(bit)));
          bits &= bits - 1;
        }
      }
    } else {
      for (uint32_t v = 0; v < cardinalities[i]; v++) rows.push_back(base | in.little(2));
    }
    if (rows.size() - before != cardinalities[i])
      in.fail("a container holds " + std::to_string(rows.size() - before) + " rows where its header says " +
              std::to_string(cardinalities[i]));
  }
}

void put_little(std::string& out, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; i++) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint32_t big_endian_u32(const std::string& bytes, size_t at) {
  uint32_t value = 0;
  for (size_t i = 0; i < 4; i++) value = (value << 8) | static_cast<uint8_t>(bytes[at + i]);
  return value;
}

std::string uuid_text(const std::string& bytes) {
  static const char* hex = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < bytes.size(); i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(hex[static_cast<uint8_t>(bytes[i]) >> 4]);
    text.push_back(hex[static_cast<uint8_t>(bytes[i]) & 0xF]);
  }
  return text;
}

// A 'p' vector's path as a plain path: URL-decoded (it has add.path's form), without file:.
std::string absolute_vector_path(const DeletionVector& vector) {
  std::string path = url_decode_path(vector.path_or_inline_dv);
  if (path.starts_with("file://")) path = path.substr(7);
  else if (path.starts_with("file:")) path = path.substr(5);
  return path;
}

// The serialized vector of a descriptor: inline, or cut out of its file and checked.
std::string serialized_vector(const Table& table, const DeletionVector& vector, const std::string& where) {
  if (vector.storage_type == "i") {
    std::string bytes = z85_decode(vector.path_or_inline_dv);
    if (static_cast<int64_t>(bytes.size()) < vector.size_in_bytes)
      throw Error("the inline deletion vector " + where + " holds " + std::to_string(bytes.size()) +
                  " bytes where the log says " + std::to_string(vector.size_in_bytes));
    return bytes.substr(0, static_cast<size_t>(vector.size_in_bytes));
  }
  std::optional<std::string> file;
  std::string file_name;
  if (vector.storage_type == "u") {
    file_name = deletion_vector_file(vector);
    file = read_table_file(table, file_name);
  } else {
    // An absolute path: in this table's own folder, or a local file.
    file_name = absolute_vector_path(vector);
    std::string key = deletion_vector_key(table, vector);
    if (!key.empty()) file = read_table_file(table, key);
    else if (!is_remote_table(file_name) && file_name.starts_with("/") && path_exists(file_name)) file = read_file(file_name);
    else throw Error("the deletion vector " + where + " is at " + file_name + ", outside the table; lakestream reads "
                     "vectors in the table's own folder");
  }
  if (!file) throw Error("the deletion vector file " + file_name + " of " + where + " is missing from table " + table.path() +
                         ": its rows cannot be read right without it. Was it vacuumed or copied without it?");
  const std::string& bytes = *file;
  // The protocol makes an absent offset 0; writers always state it, and the first vector of a
  // file starts after the version byte, at 1.
  int64_t offset = vector.offset.value_or(1);
  if (bytes.empty() || bytes[0] != 1)
    throw Error("the deletion vector file " + file_name + " of table " + table.path() + " is not of format version 1");
  if (offset < 1 || offset + 8 + vector.size_in_bytes > static_cast<int64_t>(bytes.size()))
    throw Error("the deletion vector " + where + " lies past the end of its file " + file_name + " (" +
                std::to_string(bytes.size()) + " bytes)");
  size_t at = static_cast<size_t>(offset);
  uint32_t size = big_endian_u32(bytes, at);
  if (size != vector.size_in_bytes)
    throw Error("the deletion vector " + where + " in " + file_name + " is " + std::to_string(size) +
                " bytes where the log says " + std::to_string(vector.size_in_bytes));
  std::string data = bytes.substr(at + 4, size);
  uint32_t stored = big_endian_u32(bytes, at + 4 + size);
  uint32_t computed = static_cast<uint32_t>(
      crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
  if (stored != computed)
    throw Error("the deletion vector " + where + " in " + file_name + " fails its checksum (CRC-32 " +
                std::to_string(computed) + ", stored " + std::to_string(stored) + "): the file is damaged");
  return data;
}

// Decoded vectors by table and id: a vector never changes once written.
class RememberedVectors {
 public:
  std::shared_ptr<const std::vector<uint64_t>> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = by_key_.find(key);
    if (it == by_key_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second.second);
    return it->second.first;
  }
  void keep(const std::string& key, std::shared_ptr<const std::vector<uint64_t>> rows) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (by_key_.count(key)) return;
    order_.push_front(key);
    by_key_[key] = {std::move(rows), order_.begin()};
    while (by_key_.size() > kRememberedVectors) {
      by_key_.erase(order_.back());
      order_.pop_back();
    }
  }

 private:
  std::mutex mutex_;
  std::list<std::string> order_;  // most recently used first
  std::map<std::string, std::pair<std::shared_ptr<const std::vector<uint64_t>>, std::list<std::string>::iterator>> by_key_;
};

RememberedVectors& remembered() {
  static RememberedVectors vectors;
  return vectors;
}

}  // namespace

std::string z85_decode(const std::string& text) {
  static const auto values = [] {
    std::array<int, 256> v;
    v.fill(-1);
    for (int i = 0; i < 85; i++) v[static_cast<uint8_t>(kZ85Alphabet[i])] = i;
    return v;
  }();
  if (text.size() % 5 != 0) throw Error("Z85 text of " + std::to_string(text.size()) + " characters (not a multiple of 5)");
  std::string bytes;
  bytes.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t value = 0;
    for (size_t j = 0; j < 5; j++) {
      int digit = values[static_cast<uint8_t>(text[i + j])];
      if (digit < 0) throw Error(std::string("Z85 text holds '") + text[i + j] + "', which is not a Z85 character");
      value = value * 85 + static_cast<uint64_t>(digit);
    }
    if (value > 0xFFFFFFFFull) throw Error("Z85 text holds a group past 32 bits: " + text.substr(i, 5));
    for (int shift = 24; shift >= 0; shift -= 8) bytes.push_back(static_cast<char>((value >> shift) & 0xFF));
  }
  return bytes;
}

std::string z85_encode(const std::string& bytes) {
  std::string padded = bytes;
  while (padded.size() % 4 != 0) padded.push_back('\0');
  std::string text;
  for (size_t i = 0; i < padded.size(); i += 4) {
    uint64_t value = big_endian_u32(padded, i);
    char group[5];
    for (int j = 4; j >= 0; j--) {
      group[j] = kZ85Alphabet[value % 85];
      value /= 85;
    }
    text.append(group, 5);
  }
  return text;
}

std::vector<uint64_t> decode_row_bitmap(const std::string& bytes, const std::string& where) {
  ByteReader in(bytes, where);
  uint32_t magic = static_cast<uint32_t>(in.little(4));
  if (magic != kMagic)
    in.fail("it starts with " + std::to_string(magic) + ", not the RoaringBitmapArray magic number " + std::to_string(kMagic));
  uint64_t bitmaps = in.little(8);
  if (bitmaps > bytes.size()) in.fail("it says it has " + std::to_string(bitmaps) + " bitmaps");
  std::vector<uint64_t> rows;
  for (uint64_t i = 0; i < bitmaps; i++) {
    uint64_t high = in.little(4);
    read_roaring32(in, high, rows);
  }
  if (!in.at_end()) in.fail("bytes follow its last bitmap");
  if (!std::is_sorted(rows.begin(), rows.end()) || std::adjacent_find(rows.begin(), rows.end()) != rows.end())
    in.fail("its rows are not in ascending order");
  return rows;
}

std::string encode_row_bitmap(const std::vector<uint64_t>& rows) {
  std::string out;
  put_little(out, kMagic, 4);
  // Split by the high 32 bits, then each 32-bit bitmap by the high 16 into containers.
  std::map<uint32_t, std::map<uint16_t, std::vector<uint16_t>>> bitmaps;
  for (uint64_t row : rows)
    bitmaps[static_cast<uint32_t>(row >> 32)][static_cast<uint16_t>(row >> 16)].push_back(static_cast<uint16_t>(row));
  put_little(out, bitmaps.size(), 8);
  for (const auto& [high, containers] : bitmaps) {
    put_little(out, high, 4);
    put_little(out, kCookieNoRuns, 4);
    put_little(out, containers.size(), 4);
    for (const auto& [key, values] : containers) {
      put_little(out, key, 2);
      put_little(out, values.size() - 1, 2);
    }
    // Offsets from the start of this bitmap: cookie, count, headers and offsets come first.
    uint64_t offset = 8 + 8 * containers.size();
    for (const auto& [key, values] : containers) {
      put_little(out, offset, 4);
      offset += values.size() > kMaxArrayCardinality ? 8192 : 2 * values.size();
    }
    for (const auto& [key, values] : containers) {
      if (values.size() > kMaxArrayCardinality) {
        std::vector<uint64_t> words(1024, 0);
        for (uint16_t v : values) words[v / 64] |= uint64_t{1} << (v % 64);
        for (uint64_t word : words) put_little(out, word, 8);
      } else {
        for (uint16_t v : values) put_little(out, v, 2);
      }
    }
  }
  return out;
}

std::string deletion_vector_file(const DeletionVector& vector) {
  if (vector.storage_type != "u") return "";
  const std::string& text = vector.path_or_inline_dv;
  if (text.size() < kUuidZ85Length)
    throw Error("a deletion vector's pathOrInlineDv \"" + text + "\" is shorter than the 20 characters of its file's UUID");
  std::string prefix = text.substr(0, text.size() - kUuidZ85Length);
  std::string name = "deletion_vector_" + uuid_text(z85_decode(text.substr(text.size() - kUuidZ85Length))) + ".bin";
  return prefix.empty() ? name : prefix + "/" + name;
}

DeletionVector write_deletion_vector(const Table& table, const std::vector<uint64_t>& rows) {
  std::string data = encode_row_bitmap(rows);
  auto put_big_endian = [](std::string& out, uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xFF));
  };
  std::string file(1, '\1');  // format version 1
  put_big_endian(file, static_cast<uint32_t>(data.size()));
  file += data;
  put_big_endian(file, static_cast<uint32_t>(
                           crc32(0L, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size()))));
  for (;;) {
    std::string uuid = new_uuid();
    std::string bytes;
    for (size_t i = 0; i < uuid.size(); i++) {
      if (uuid[i] == '-') continue;
      bytes.push_back(static_cast<char>(std::stoi(uuid.substr(i, 2), nullptr, 16)));
      i++;
    }
    DeletionVector vector{"u", z85_encode(bytes), 1, static_cast<int64_t>(data.size()), static_cast<int64_t>(rows.size())};
    if (put_table_file_if_absent(table, deletion_vector_file(vector), file)) return vector;
  }
}

std::string deletion_vector_key(const Table& table, const DeletionVector& vector) {
  if (vector.storage_type == "u") return deletion_vector_file(vector);
  if (vector.storage_type != "p") return "";
  std::string path = absolute_vector_path(vector);
  std::string folder = table.normal().path();
  return path.starts_with(folder + "/") ? path.substr(folder.size() + 1) : "";
}

std::vector<uint64_t> deleted_rows(const Table& table, const DeletionVector& vector) {
  std::string key = table.path() + "\n" + vector.unique_id();
  if (auto rows = remembered().find(key)) return *rows;
  std::string where = "\"" + vector.unique_id() + "\" of table " + table.path();
  auto rows = std::make_shared<const std::vector<uint64_t>>(
      decode_row_bitmap(serialized_vector(table, vector, where), where));
  if (static_cast<int64_t>(rows->size()) != vector.cardinality)
    throw Error("the deletion vector " + where + " deletes " + std::to_string(rows->size()) +
                " rows where the log says " + std::to_string(vector.cardinality) + ": the vector or the log is damaged");
  remembered().keep(key, rows);
  return *rows;
}

std::optional<int64_t> AddFile::live_rows() const {
  if (stats.empty()) return std::nullopt;
  auto parsed = nlohmann::json::parse(stats, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("numRecords") ||
      !parsed["numRecords"].is_number_integer())
    return std::nullopt;
  return parsed["numRecords"].get<int64_t>() - (deletion_vector ? deletion_vector->cardinality : 0);
}

}  // namespace lakestream::delta
