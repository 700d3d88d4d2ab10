// Escaping rules shared with Spark/Hive (partition folders) and with java.net.URI (log paths), so
// that tables written here read back in Spark and the other way round.
#include "table/path_encoding.h"

#include <cctype>
#include <cstdio>

#include "util/percent_encoding.h"

namespace lakestream::delta {

namespace {

// Hive's FileUtils.escapePathName set, plus space (a name with a space is a trap in shells).
bool hive_needs_escape(unsigned char c) {
  if (c < 0x20 || c == 0x7F) return true;
  switch (c) {
    case '"': case '#': case '%': case '\'': case '*': case '/': case ':': case '=': case '?':
    case '\\': case '{': case '[': case ']': case '^': case ' ':
      return true;
    default:
      return false;
  }
}

// Characters a URI path may hold as they are (RFC 3986 unreserved, sub-delims, ':', '@', '/').
bool uri_path_char(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '-': case '.': case '_': case '~': case '/': case '!': case '$': case '&': case '\'':
    case '(': case ')': case '*': case '+': case ',': case ';': case '=': case ':': case '@':
      return true;
    default:
      return false;
  }
}

std::string percent(unsigned char c) {
  char buf[4];
  std::snprintf(buf, sizeof buf, "%%%02X", c);
  return buf;
}

}  // namespace

std::string hive_escape_partition_value(const std::optional<std::string>& value) {
  if (!value || value->empty()) return "__HIVE_DEFAULT_PARTITION__";
  return hive_escape_path_name(*value);
}

std::string hive_escape_path_name(const std::string& name) {
  std::string out;
  for (unsigned char c : name) out += hive_needs_escape(c) ? percent(c) : std::string(1, static_cast<char>(c));
  return out;
}

std::string url_encode_path(const std::string& path) {
  std::string out;
  for (unsigned char c : path) out += uri_path_char(c) ? std::string(1, static_cast<char>(c)) : percent(c);
  return out;
}

std::string url_decode_path(const std::string& path) { return percent_decoded(path); }

}  // namespace lakestream::delta
