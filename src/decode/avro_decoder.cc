// Avro bodies to JSON rows. The table type of each field is read from the schema's JSON (avro-c
// 1.11 drops logical types); the values come from avro-c's generic reader, walked alongside.
#include "decode/avro_decoder.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "util/error.h"
#include "util/json_member.h"
#include "util/utf8.h"

namespace lakestream {
namespace {

using json = nlohmann::json;


std::string text_member(const json& object, const char* key) {
  const json& value = json_member(object, key);
  return value.is_string() ? value.get<std::string>() : "";
}

// The name of a type's kind: "long", "record", "union", ...
std::string kind_of(const json& type) {
  if (type.is_array()) return "union";
  if (type.is_string()) return type.get<std::string>();
  return kind_of(json_member(type, "type"));
}

// Days since 1970-01-01 to a civil date (H. Hinnant's algorithm), as YYYY-MM-DD.
std::string civil_date(int64_t days) {
  days += 719468;
  int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  int64_t doe = days - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t y = yoe + era * 400;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  int64_t d = doy - (153 * mp + 2) / 5 + 1;
  int64_t m = mp < 10 ? mp + 3 : mp - 9;
  if (m <= 2) y++;
  char text[64];  // room for any int64 fields, though a date's are short
  std::snprintf(text, sizeof text, "%04lld-%02lld-%02lld", static_cast<long long>(y), static_cast<long long>(m),
                static_cast<long long>(d));
  return text;
}

// Microseconds since the epoch as ISO-8601 UTC with microseconds.
std::string iso_timestamp(int64_t micros) {
  int64_t seconds = micros / 1000000, fraction = micros % 1000000;
  if (fraction < 0) {
    fraction += 1000000;
    seconds--;
  }
  int64_t days = seconds / 86400, of_day = seconds % 86400;
  if (of_day < 0) {
    of_day += 86400;
    days--;
  }
  char text[64];
  std::snprintf(text, sizeof text, "%sT%02lld:%02lld:%02lld.%06lldZ", civil_date(days).c_str(),
                static_cast<long long>(of_day / 3600), static_cast<long long>(of_day / 60 % 60),
                static_cast<long long>(of_day % 60), static_cast<long long>(fraction));
  return text;
}

void append_json_string(std::string& out, const char* data, size_t size) {
  out += '"';
  for (size_t i = 0; i < size; i++) {
    auto c = static_cast<unsigned char>(data[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
      out += escaped;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

// Bytes as the text DuckDB casts to a BLOB: \xHH for each byte, as a JSON string.
void append_blob(std::string& out, const unsigned char* data, size_t size) {
  out += '"';
  char hex[8];
  for (size_t i = 0; i < size; i++) {
    std::snprintf(hex, sizeof hex, "\\\\x%02X", data[i]);
    out += hex;
  }
  out += '"';
}

// A decimal's two's-complement big-endian unscaled value as its text with `scale` decimals;
// false when it has more than `precision` digits.
bool append_decimal(std::string& out, const unsigned char* data, size_t size, int precision, int scale) {
  if (size > 16) return false;
  unsigned __int128 bits = 0;
  for (size_t i = 0; i < size; i++) bits = (bits << 8) | data[i];
  bool negative = size > 0 && (data[0] & 0x80);
  if (negative && size < 16) bits |= ~static_cast<unsigned __int128>(0) << (8 * size);
  unsigned __int128 magnitude = negative ? ~bits + 1 : bits;
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude > 0);
  if (static_cast<int>(digits.size()) > precision) return false;
  if (static_cast<int>(digits.size()) <= scale) digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
  if (scale > 0) digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  out += '"';
  if (negative) out += '-';
  out += digits + '"';
  return true;
}

void append_double(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "\"NaN\"";
  } else if (std::isinf(value)) {
    out += value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  } else {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    out += text;
  }
}

}  // namespace

// The table type of Avro types, with named types resolved.
class AvroTypes {
 public:
  explicit AvroTypes(const json& schema) { collect(schema); }

  const json& resolve(const json& type) const {
    if (!type.is_string()) return type;
    auto it = named_.find(type.get<std::string>());
    return it == named_.end() ? type : *it->second;
  }

  // The Delta type of `type`; sets `nullable` for a union with null. Throws Error naming `where`.
  json delta_type(const json& type_ref, const std::string& where, bool& nullable) const {
    const json& type = resolve(type_ref);
    std::string kind = kind_of(type);
    if (kind == "union") {
      const json* branch = nullptr;
      for (const auto& b : type) {
        if (kind_of(resolve(b)) == "null") {
          nullable = true;
        } else if (branch) {
          throw Error(where + " is a union of several types (" + type.dump() +
                      "), which a table column cannot hold; use one type, or [\"null\", type]");
        } else {
          branch = &b;
        }
      }
      if (!branch) throw Error(where + " can only be null; drop it from the schema");
      return delta_type(*branch, where, nullable);
    }
    std::string logical = text_member(type, "logicalType");
    if (logical == "decimal" && (kind == "bytes" || kind == "fixed")) {
      int precision = json_member(type, "precision").is_number_integer() ? json_member(type, "precision").get<int>() : 0;
      int scale = json_member(type, "scale").is_number_integer() ? json_member(type, "scale").get<int>() : 0;
      if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
        throw Error(where + " is a decimal(" + std::to_string(precision) + "," + std::to_string(scale) +
                    "); a table holds decimals of precision 1 to 38 with 0 <= scale <= precision");
      return "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    }
    if (kind == "int" && logical == "date") return "date";
    if (kind == "long" && (logical == "timestamp-millis" || logical == "timestamp-micros" ||
                           logical == "local-timestamp-millis" || logical == "local-timestamp-micros"))
      return "timestamp";
    if (kind == "boolean") return "boolean";
    if (kind == "int") return "integer";
    if (kind == "long") return "long";
    if (kind == "float") return "float";
    if (kind == "double") return "double";
    if (kind == "string" || kind == "enum") return "string";
    if (kind == "bytes" || kind == "fixed") return "binary";
    if (kind == "array") {
      bool element_nullable = false;
      json element = delta_type(json_member(type, "items"), where + " items", element_nullable);
      return {{"type", "array"}, {"elementType", element}, {"containsNull", element_nullable}};
    }
    if (kind == "map") {
      bool value_nullable = false;
      json value = delta_type(json_member(type, "values"), where + " values", value_nullable);
      return {{"type", "map"}, {"keyType", "string"}, {"valueType", value}, {"valueContainsNull", value_nullable}};
    }
    if (kind == "record") {
      json fields = json::array();
      for (const auto& field : json_member(type, "fields")) {
        bool field_nullable = false;
        std::string name = text_member(field, "name");
        json field_type = delta_type(json_member(field, "type"), where + "." + name, field_nullable);
        fields.push_back({{"name", name}, {"type", field_type}, {"nullable", field_nullable}, {"metadata", json::object()}});
      }
      return {{"type", "struct"}, {"fields", fields}};
    }
    throw Error(where + " has the Avro type " + type.dump() + ", which a table column cannot hold");
  }

 private:
  void collect(const json& type) {
    if (type.is_array()) {
      for (const auto& branch : type) collect(branch);
      return;
    }
    if (!type.is_object()) return;
    std::string kind = json_member(type, "type").is_string() ? json_member(type, "type").get<std::string>() : "";
    std::string name = text_member(type, "name");
    if ((kind == "record" || kind == "enum" || kind == "fixed") && !name.empty()) {
      named_[name] = &type;
      std::string space = text_member(type, "namespace");
      if (!space.empty()) named_[space + "." + name] = &type;
    }
    for (const auto& field : json_member(type, "fields")) collect(json_member(field, "type"));
    collect(json_member(type, "items"));
    collect(json_member(type, "values"));
    if (!json_member(type, "type").is_string()) collect(json_member(type, "type"));
  }

  std::map<std::string, const json*> named_;
};

namespace {

// Writes the JSON of one Avro value of `type_ref`; false with `reason` when it cannot.
bool render(const AvroTypes& types, const json& type_ref, avro_value_t& value, const std::string& where,
            std::string& out, std::string& reason) {
  const json& type = types.resolve(type_ref);
  switch (avro_value_get_type(&value)) {
    case AVRO_NULL:
      out += "null";
      return true;
    case AVRO_BOOLEAN: {
      int b = 0;
      avro_value_get_boolean(&value, &b);
      out += b ? "true" : "false";
      return true;
    }
    case AVRO_INT32: {
      int32_t v = 0;
      avro_value_get_int(&value, &v);
      if (text_member(type, "logicalType") == "date") out += "\"" + civil_date(v) + "\"";
      else out += std::to_string(v);
      return true;
    }
    case AVRO_INT64: {
      int64_t v = 0;
      avro_value_get_long(&value, &v);
      std::string logical = text_member(type, "logicalType");
      if (logical == "timestamp-millis" || logical == "local-timestamp-millis") out += "\"" + iso_timestamp(v * 1000) + "\"";
      else if (logical == "timestamp-micros" || logical == "local-timestamp-micros") out += "\"" + iso_timestamp(v) + "\"";
      else out += std::to_string(v);
      return true;
    }
    case AVRO_FLOAT: {
      float v = 0;
      avro_value_get_float(&value, &v);
      append_double(out, v);
      return true;
    }
    case AVRO_DOUBLE: {
      double v = 0;
      avro_value_get_double(&value, &v);
      append_double(out, v);
      return true;
    }
    case AVRO_STRING: {
      const char* text = nullptr;
      size_t size = 0;
      avro_value_get_string(&value, &text, &size);
      size = size > 0 ? size - 1 : 0;  // avro-c counts the terminating NUL
      if (!is_valid_utf8(text, size)) {
        reason = where + ": the string is not valid UTF-8";
        return false;
      }
      append_json_string(out, text, size);
      return true;
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
      const void* data = nullptr;
      size_t size = 0;
      if (avro_value_get_type(&value) == AVRO_BYTES) avro_value_get_bytes(&value, &data, &size);
      else avro_value_get_fixed(&value, &data, &size);
      auto bytes = static_cast<const unsigned char*>(data);
      if (text_member(type, "logicalType") != "decimal") {
        append_blob(out, bytes, size);
        return true;
      }
      int precision = json_member(type, "precision").get<int>();
      int scale = json_member(type, "scale").is_number_integer() ? json_member(type, "scale").get<int>() : 0;
      if (!append_decimal(out, bytes, size, precision, scale)) {
        reason = where + ": the decimal has more than its " + std::to_string(precision) + " digits";
        return false;
      }
      return true;
    }
    case AVRO_ENUM: {
      int index = 0;
      avro_value_get_enum(&value, &index);
      const json& symbols = json_member(type, "symbols");
      if (index < 0 || static_cast<size_t>(index) >= symbols.size()) {
        reason = where + ": enum index " + std::to_string(index) + " has no symbol";
        return false;
      }
      append_json_string(out, symbols[index].get_ref<const std::string&>().data(), symbols[index].get_ref<const std::string&>().size());
      return true;
    }
    case AVRO_UNION: {
      int discriminant = 0;
      avro_value_t branch;
      avro_value_get_discriminant(&value, &discriminant);
      avro_value_get_current_branch(&value, &branch);
      return render(types, type.at(static_cast<size_t>(discriminant)), branch, where, out, reason);
    }
    case AVRO_ARRAY: {
      size_t count = 0;
      avro_value_get_size(&value, &count);
      out += '[';
      for (size_t i = 0; i < count; i++) {
        avro_value_t element;
        avro_value_get_by_index(&value, i, &element, nullptr);
        if (i) out += ',';
        if (!render(types, json_member(type, "items"), element, where + "[" + std::to_string(i) + "]", out, reason)) return false;
      }
      out += ']';
      return true;
    }
    case AVRO_MAP: {
      size_t count = 0;
      avro_value_get_size(&value, &count);
      out += '{';
      for (size_t i = 0; i < count; i++) {
        avro_value_t element;
        const char* key = nullptr;
        avro_value_get_by_index(&value, i, &element, &key);
        if (i) out += ',';
        append_json_string(out, key, std::strlen(key));
        out += ':';
        if (!render(types, json_member(type, "values"), element, where + "[" + key + "]", out, reason)) return false;
      }
      out += '}';
      return true;
    }
    case AVRO_RECORD: {
      const json& fields = json_member(type, "fields");
      out += '{';
      for (size_t i = 0; i < fields.size(); i++) {
        avro_value_t field;
        avro_value_get_by_index(&value, i, &field, nullptr);
        std::string name = text_member(fields[i], "name");
        if (i) out += ',';
        append_json_string(out, name.data(), name.size());
        out += ':';
        if (!render(types, json_member(fields[i], "type"), field, where.empty() ? "field \"" + name + "\"" : where + "." + name,
                    out, reason))
          return false;
      }
      out += '}';
      return true;
    }
    default:
      reason = where + ": a value of an Avro type lakestream does not read";
      return false;
  }
}

}  // namespace

std::optional<ConfluentFrame> read_confluent_frame(const char* value, size_t size, std::string& reason) {
  if (size < 5) {
    reason = "not Confluent-framed Avro: " + std::to_string(size) + " bytes, fewer than the 5 of the header "
             "(magic byte 0 and a 4-byte schema id)";
    return std::nullopt;
  }
  auto bytes = reinterpret_cast<const unsigned char*>(value);
  if (bytes[0] != 0) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", bytes[0]);
    reason = std::string("wrong magic byte ") + hex + ": not Confluent-framed Avro (it starts with 0x00, then a "
             "4-byte schema id)";
    return std::nullopt;
  }
  ConfluentFrame frame;
  frame.schema_id = static_cast<int32_t>((uint32_t{bytes[1]} << 24) | (uint32_t{bytes[2]} << 16) |
                                         (uint32_t{bytes[3]} << 8) | uint32_t{bytes[4]});
  frame.body = value + 5;
  frame.size = size - 5;
  return frame;
}

AvroWriterSchema::AvroWriterSchema(int32_t id, const std::string& schema_json) : id_(id) {
  std::string what = "the writer schema with id " + std::to_string(id);
  schema_ = json::parse(schema_json, nullptr, false);
  if (schema_.is_discarded()) throw Error(what + " is not JSON");
  if (kind_of(schema_) != "record")
    throw Error(what + " is not a record (it is " + schema_.dump() + "); an Avro source's values must be records, "
                "one field per column");
  if (avro_schema_from_json_length(schema_json.c_str(), schema_json.size(), &avro_schema_) != 0)
    throw Error(what + " is not a valid Avro schema: " + avro_strerror());
  iface_ = avro_generic_class_from_schema(avro_schema_);
  if (!iface_) throw Error(what + " cannot be read: " + avro_strerror());
  types_ = std::make_unique<AvroTypes>(schema_);
  const AvroTypes& types = *types_;
  for (const auto& field : json_member(schema_, "fields")) {
    AvroColumn column;
    column.name = text_member(field, "name");
    column.delta_type = types.delta_type(json_member(field, "type"), what + ": field \"" + column.name + "\"", column.nullable);
    column.has_default = field.contains("default");
    columns_.push_back(column);
  }
}

AvroWriterSchema::~AvroWriterSchema() {
  if (iface_) avro_value_iface_decref(iface_);
  if (avro_schema_) avro_schema_decref(avro_schema_);
}

bool AvroWriterSchema::decode(const char* body, size_t size, std::string& json_out, std::string& reason) const {
  avro_value_t value;
  if (avro_generic_value_new(iface_, &value) != 0) throw Error(std::string("avro-c: ") + avro_strerror());
  avro_reader_t reader = avro_reader_memory(body, static_cast<int64_t>(size));
  bool ok = true;
  if (avro_value_read(reader, &value) != 0) {
    reason = "the Avro body does not decode with schema id " + std::to_string(id_) + " (truncated or corrupt: " +
             avro_strerror() + ")";
    ok = false;
  } else if (char extra; avro_read(reader, &extra, 1) == 0) {  // avro_reader_is_eof only knows files
    reason = "the Avro body has bytes left over after the record of schema id " + std::to_string(id_) +
             " (written with another schema, or corrupt)";
    ok = false;
  } else {
    json_out.clear();
    ok = render(*types_, schema_, value, "", json_out, reason);
  }
  avro_reader_free(reader);
  avro_value_decref(&value);
  return ok;
}

}  // namespace lakestream
