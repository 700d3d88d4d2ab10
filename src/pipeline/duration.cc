// Durations as the pipeline file writes them ("90s", "15 minutes", "1 hour"), for watermark
// delays and window sizes.
#include <cctype>
#include <limits>
#include <string_view>

#include "pipeline/pipeline.h"

namespace lakestream {
namespace {

struct Unit {
  std::string_view short_name;  // any count: "90s", "1h"
  std::string_view singular;    // a count of 1: "1 hour"
  std::string_view plural;      // any other count: "2 hours"
  int64_t microseconds;
};

constexpr Unit kUnits[] = {
    {"ms", "millisecond", "milliseconds", 1'000},
    {"s", "second", "seconds", 1'000'000},
    {"m", "minute", "minutes", 60'000'000},
    {"h", "hour", "hours", 3'600'000'000},
    {"d", "day", "days", 86'400'000'000},
};

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::optional<int64_t> parse_duration_us(const std::string& text) {
  std::string_view rest(text);
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);
  while (!rest.empty() && is_space(rest.back())) rest.remove_suffix(1);

  int64_t count = 0;
  size_t digits = 0;
  while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) {
    if (count > (std::numeric_limits<int64_t>::max() - 9) / 10) return std::nullopt;
    count = count * 10 + (rest[digits] - '0');
    ++digits;
  }
  if (digits == 0) return std::nullopt;
  rest.remove_prefix(digits);
  while (!rest.empty() && is_space(rest.front())) rest.remove_prefix(1);

  for (const auto& unit : kUnits) {
    // Words must agree with the count ("1 hour", "2 hours"): "1 hours" reads as a typo, and a
    // setting that decides when data is dropped should not be a guess.
    bool matches = rest == unit.short_name || rest == (count == 1 ? unit.singular : unit.plural);
    if (!matches) continue;
    if (count > std::numeric_limits<int64_t>::max() / unit.microseconds) return std::nullopt;
    return count * unit.microseconds;
  }
  return std::nullopt;
}

}  // namespace lakestream
