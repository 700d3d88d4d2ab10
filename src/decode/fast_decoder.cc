// A strict scanner for JSON objects whose fields are their own members (objects and arrays
// in other members are checked and skipped). It accepts a subset of what DuckDB's JSON reader
// accepts and of what the SQL decoder turns into values, so that an accepted record means the
// same on both paths; anything it is not sure of it declines, and the SQL decoder decides.
#include "decode/fast_decoder.h"

#include <charconv>
#include <cmath>
#include <cstdint>

#include "util/civil_date.h"

namespace lakestream {
namespace {

constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr size_t kEpochMillisDigits = 13;
constexpr size_t kMaxFields = 64;  // the seen-fields mask; larger schemas take the SQL path
constexpr int kMaxDepth = 16;      // deeper values than this in a skipped member take the SQL path

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A position in the document; every read checks the end.
struct Cursor {
  const char* p;
  const char* end;

  void skip_spaces() {
    while (p < end && is_space(*p)) p++;
  }
  bool take(char c) {
    if (p < end && *p == c) {
      p++;
      return true;
    }
    return false;
  }
  // A string without escapes or control characters; [begin, end) is its content.
  bool plain_string(std::string_view& out) {
    if (!take('"')) return false;
    const char* begin = p;
    while (p < end && *p != '"') {
      auto byte = static_cast<unsigned char>(*p);
      if (byte == '\\' || byte < 0x20) return false;
      p++;
    }
    if (p == end) return false;
    out = std::string_view(begin, p - begin);
    p++;
    return true;
  }
  bool literal(std::string_view word) {
    if (static_cast<size_t>(end - p) < word.size() || std::string_view(p, word.size()) != word) return false;
    p += word.size();
    return true;
  }
};

// A JSON number as written: sign, integer digits (no leading zeros), optional fraction, and no
// exponent (an exponent is declined: the SQL decoder reads it its own way).
struct Number {
  bool negative = false;
  std::string_view integer;
  std::string_view fraction;  // without the point; empty when there is none
  bool has_point = false;
  std::string_view text;
};

bool read_number(Cursor& c, Number& n) {
  const char* start = c.p;
  n.negative = c.take('-');
  const char* digits = c.p;
  while (c.p < c.end && is_digit(*c.p)) c.p++;
  n.integer = std::string_view(digits, c.p - digits);
  if (n.integer.empty() || (n.integer.size() > 1 && n.integer[0] == '0')) return false;
  if (c.take('.')) {
    n.has_point = true;
    const char* f = c.p;
    while (c.p < c.end && is_digit(*c.p)) c.p++;
    n.fraction = std::string_view(f, c.p - f);
    if (n.fraction.empty()) return false;
  }
  if (c.p < c.end && (*c.p == 'e' || *c.p == 'E')) return false;
  n.text = std::string_view(start, c.p - start);
  return true;
}

bool skip_value(Cursor& c, int depth);

// The members or elements of an object or array after its opening bracket, through its
// closing one. Keys inside are never looked up: only the document's own members are fields.
bool skip_container(Cursor& c, char close, int depth) {
  c.skip_spaces();
  if (c.take(close)) return true;
  while (true) {
    c.skip_spaces();
    if (close == '}') {
      std::string_view key;
      if (!c.plain_string(key)) return false;
      c.skip_spaces();
      if (!c.take(':')) return false;
      c.skip_spaces();
    }
    if (!skip_value(c, depth)) return false;
    c.skip_spaces();
    if (c.take(close)) return true;
    if (!c.take(',')) return false;
  }
}

// Skips a member's value that no field takes, checking it as strictly as a field's: plain
// strings, numbers without exponents, literals, and objects and arrays of those, nested at most
// kMaxDepth deep. Anything else is declined.
bool skip_value(Cursor& c, int depth) {
  if (c.p == c.end) return false;
  std::string_view text;
  Number number;
  switch (*c.p) {
    case '"': return c.plain_string(text);
    case 't': return c.literal("true");
    case 'f': return c.literal("false");
    case 'n': return c.literal("null");
    case '{': c.p++; return depth < kMaxDepth && skip_container(c, '}', depth + 1);
    case '[': c.p++; return depth < kMaxDepth && skip_container(c, ']', depth + 1);
    default: return read_number(c, number);
  }
}

// Digits as an unsigned number; false on overflow of 18 digits (never wraps).
bool digits_value(std::string_view digits, int64_t& out) {
  if (digits.size() > 18) return false;
  out = 0;
  for (char d : digits) out = out * 10 + (d - '0');
  return true;
}

bool read_integer(Cursor& c, int64_t& out) {
  Number n;
  if (!read_number(c, n) || n.has_point || !digits_value(n.integer, out)) return false;
  if (n.negative && out == 0) return false;  // "-0": DuckDB's reader makes it a double
  if (n.negative) out = -out;
  return true;
}

// A decimal with at most `scale` decimals that count (trailing zeros do not) and at most
// precision - scale integer digits, as the unscaled integer value * 10^scale.
bool read_decimal(Cursor& c, const Field& field, int64_t scale_factor, int64_t& out) {
  Number n;
  if (!read_number(c, n)) return false;
  std::string_view fraction = n.fraction;
  while (!fraction.empty() && fraction.back() == '0') fraction.remove_suffix(1);
  if (static_cast<int>(fraction.size()) > field.scale) return false;
  std::string_view integer = n.integer == "0" ? std::string_view() : n.integer;
  if (static_cast<int>(integer.size()) > field.precision - field.scale) return false;
  int64_t whole = 0, part = 0;
  if (!digits_value(integer, whole) || !digits_value(fraction, part)) return false;
  for (size_t i = fraction.size(); i < static_cast<size_t>(field.scale); i++) part *= 10;
  out = whole * scale_factor + part;
  if (n.negative) out = -out;
  return true;
}

bool read_double(Cursor& c, double& out) {
  Number n;
  // Up to 15 significant digits every correct reader gives the same double.
  if (!read_number(c, n) || n.integer.size() + n.fraction.size() > 15) return false;
  auto [end, error] = std::from_chars(n.text.data(), n.text.data() + n.text.size(), out);
  return error == std::errc() && end == n.text.data() + n.text.size() && std::isfinite(out);
}

bool leap_year(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

// `count` digits at `at` as a number.
bool fixed_digits(std::string_view s, size_t at, size_t count, int& out) {
  if (at + count > s.size()) return false;
  out = 0;
  for (size_t i = at; i < at + count; i++) {
    if (!is_digit(s[i])) return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// 2026-10-01T09:05:00[.ffffff][Z|z|+hh:mm|-hh:mm] (or a space for the T; no zone is UTC), a real
// date and time of day, as microseconds since the epoch.
bool parse_timestamp(std::string_view s, int64_t& micros) {
  int year, month, day, hour, minute, second;
  if (!fixed_digits(s, 0, 4, year) || s.size() < 19 || s[4] != '-' || !fixed_digits(s, 5, 2, month) || s[7] != '-' ||
      !fixed_digits(s, 8, 2, day) || (s[10] != 'T' && s[10] != ' ') || !fixed_digits(s, 11, 2, hour) ||
      s[13] != ':' || !fixed_digits(s, 14, 2, minute) || s[16] != ':' || !fixed_digits(s, 17, 2, second))
    return false;
  static constexpr int kDaysIn[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (year < 1000 || month < 1 || month > 12 || day < 1 ||
      day > kDaysIn[month - 1] + (month == 2 && leap_year(year) ? 1 : 0) || hour > 23 || minute > 59 || second > 59)
    return false;
  size_t at = 19;
  int64_t fraction = 0;
  if (at < s.size() && s[at] == '.') {
    size_t digits = 0;
    for (at++; at < s.size() && is_digit(s[at]); at++, digits++) {
      if (digits == 6) return false;  // finer than microseconds: the SQL decoder decides
      fraction = fraction * 10 + (s[at] - '0');
    }
    if (digits == 0) return false;
    for (; digits < 6; digits++) fraction *= 10;
  }
  int64_t offset_seconds = 0;
  if (at < s.size()) {
    if (s[at] == 'Z' || s[at] == 'z') {
      at++;
    } else if (s[at] == '+' || s[at] == '-') {
      int oh, om;
      if (!fixed_digits(s, at + 1, 2, oh) || at + 3 >= s.size() || s[at + 3] != ':' || !fixed_digits(s, at + 4, 2, om) ||
          oh > 14 || om > 59)
        return false;
      offset_seconds = (oh * 3600 + om * 60) * (s[at] == '-' ? -1 : 1);
      at += 6;
    }
    if (at != s.size()) return false;
  }
  int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_seconds;
  micros = seconds * kMicrosPerSecond + fraction;
  return true;
}

// A timestamp written as a JSON number: milliseconds since the epoch, a whole number of 13
// digits (2001-09-09 to 2286-11-20), as Java's and JavaScript's clocks give it. Other numbers
// (seconds, fractions) are declined and refused by the SQL decoder with a reason.
bool read_epoch_millis(Cursor& c, int64_t& micros) {
  Number n;
  if (!read_number(c, n) || n.negative || n.has_point || n.integer.size() != kEpochMillisDigits) return false;
  int64_t millis;
  if (!digits_value(n.integer, millis)) return false;
  micros = millis * 1000;
  return true;
}

}  // namespace

FastDecoder::FastDecoder(const Source& source) {
  if (source.schema.fields.size() > kMaxFields) usable_ = false;
  for (const auto& field : source.schema.fields) {
    Slot slot{&field, DUCKDB_TYPE_INVALID, 1};
    if (field.type == FieldType::Decimal) {
      if (field.precision > 18 || field.scale >= field.precision) usable_ = false;
      slot.storage = field.precision <= 4 ? DUCKDB_TYPE_SMALLINT
                     : field.precision <= 9 ? DUCKDB_TYPE_INTEGER
                                            : DUCKDB_TYPE_BIGINT;
      for (int i = 0; i < field.scale; i++) slot.scale_factor *= 10;
    }
    slots_.push_back(slot);
  }
}

// Producers write a schema's fields in one order, usually the schema's: the search starts at
// the slot after the last one found.
size_t FastDecoder::find_slot(std::string_view key, size_t from) const {
  for (size_t tried = 0; tried < slots_.size(); tried++) {
    size_t i = (from + tried) % slots_.size();
    if (slots_[i].field->name == key) return i;
  }
  return slots_.size();
}

bool FastDecoder::decode(std::string_view json, sql::ChunkTable& out) const {
  if (!usable_) return false;
  Cursor c{json.data(), json.data() + json.size()};
  c.skip_spaces();
  if (!c.take('{')) return false;
  uint64_t seen = 0;
  size_t next_slot = 0;
  c.skip_spaces();
  if (!c.take('}')) {
    while (true) {
      std::string_view key;
      c.skip_spaces();
      if (!c.plain_string(key)) return false;
      c.skip_spaces();
      if (!c.take(':')) return false;
      c.skip_spaces();
      size_t i = find_slot(key, next_slot);
      if (i < slots_.size()) next_slot = i + 1;
      if (i == slots_.size()) {
        if (!skip_value(c, 0)) return false;
      } else {
        if (seen & (uint64_t{1} << i)) return false;  // written twice
        seen |= uint64_t{1} << i;
        const Slot& slot = slots_[i];
        if (c.literal("null")) {
          if (slot.field->required) return false;
          out.set_null(i);
        } else {
          switch (slot.field->type) {
            case FieldType::BigInt:
            case FieldType::Int: {
              int64_t v;
              if (!read_integer(c, v)) return false;
              if (slot.field->type == FieldType::BigInt) {
                out.set<int64_t>(i, v);
              } else {
                if (v < INT32_MIN || v > INT32_MAX) return false;
                out.set<int32_t>(i, static_cast<int32_t>(v));
              }
              break;
            }
            case FieldType::Double: {
              double v;
              if (!read_double(c, v)) return false;
              out.set<double>(i, v);
              break;
            }
            case FieldType::Boolean:
              if (c.literal("true")) out.set<bool>(i, true);
              else if (c.literal("false")) out.set<bool>(i, false);
              else return false;
              break;
            case FieldType::String: {
              std::string_view text;
              if (!c.plain_string(text)) return false;
              out.set_text(i, text.data(), text.size());
              break;
            }
            case FieldType::Decimal: {
              int64_t v;
              // Also in a string ("12.50"), as Debezium's decimal.handling.mode=string sends it.
              std::string_view quoted;
              bool in_string = c.p < c.end && *c.p == '"';
              if (in_string && !c.plain_string(quoted)) return false;
              Cursor number = in_string ? Cursor{quoted.data(), quoted.data() + quoted.size()} : c;
              if (!read_decimal(number, *slot.field, slot.scale_factor, v)) return false;
              if (in_string && number.p != number.end) return false;  // the whole string is the number
              if (!in_string) c = number;
              if (slot.storage == DUCKDB_TYPE_SMALLINT) out.set<int16_t>(i, static_cast<int16_t>(v));
              else if (slot.storage == DUCKDB_TYPE_INTEGER) out.set<int32_t>(i, static_cast<int32_t>(v));
              else out.set<int64_t>(i, v);
              break;
            }
            case FieldType::Timestamp: {
              std::string_view text;
              int64_t micros;
              if (c.p < c.end && *c.p != '"') {
                if (!read_epoch_millis(c, micros)) return false;
              } else if (!c.plain_string(text) || !parse_timestamp(text, micros)) {
                return false;
              }
              out.set<int64_t>(i, micros);
              break;
            }
          }
        }
      }
      c.skip_spaces();
      if (c.take('}')) break;
      if (!c.take(',')) return false;
    }
  }
  c.skip_spaces();
  if (c.p != c.end) return false;
  for (size_t i = 0; i < slots_.size(); i++) {
    if (seen & (uint64_t{1} << i)) continue;
    if (slots_[i].field->required) return false;
    out.set_null(i);
  }
  return true;
}

}  // namespace lakestream
