#include "util/percent_encoding.h"

namespace lakestream {

namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string percent_decoded(const std::string& text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); i++) {
    if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += plus_is_space && text[i] == '+' ? ' ' : text[i];
    }
  }
  return out;
}

std::optional<std::string> query_value(const std::string& target, const std::string& name) {
  size_t question = target.find('?');
  if (question == std::string::npos) return std::nullopt;
  std::string query = target.substr(question + 1, target.find('#') - question - 1);
  for (size_t at = 0; at <= query.size();) {
    size_t end = query.find('&', at);
    if (end == std::string::npos) end = query.size();
    std::string pair = query.substr(at, end - at);
    size_t equals = pair.find('=');
    if (percent_decoded(pair.substr(0, equals), true) == name)
      return equals == std::string::npos ? "" : percent_decoded(pair.substr(equals + 1), true);
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace lakestream
