#include "util/byte_size.h"

#include <cctype>
#include <limits>
#include <map>
#include <utility>

namespace lakestream {

std::optional<int64_t> parse_byte_size(const std::string& text) {
  size_t i = 0;
  int64_t count = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    if (count > std::numeric_limits<int64_t>::max() / 10 - 10) return std::nullopt;
    count = count * 10 + (text[i++] - '0');
  }
  if (i == 0) return std::nullopt;
  while (i < text.size() && text[i] == ' ') i++;
  std::string unit;
  for (; i < text.size(); i++) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  static const std::map<std::string, int64_t> kUnits = {
      {"", 1},           {"b", 1},          {"kb", 1LL << 10}, {"kib", 1LL << 10}, {"mb", 1LL << 20},
      {"mib", 1LL << 20}, {"gb", 1LL << 30}, {"gib", 1LL << 30}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end() || count <= 0 || count > std::numeric_limits<int64_t>::max() / it->second) return std::nullopt;
  return count * it->second;
}

std::string format_byte_size(int64_t bytes) {
  for (auto [shift, unit] : {std::pair{30, " GiB"}, std::pair{20, " MiB"}, std::pair{10, " KiB"}}) {
    if (bytes > 0 && bytes % (1LL << shift) == 0) return std::to_string(bytes >> shift) + unit;
  }
  return std::to_string(bytes) + " B";
}

}  // namespace lakestream
