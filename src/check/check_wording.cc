#include "check/check_wording.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace lakestream {

std::string count_of(int64_t n, const std::string& noun) {
  std::string singular = noun, plural = noun;
  if (noun.size() > 1 && noun.back() == 's') singular = noun.substr(0, noun.size() - 1);
  else plural = noun + "s";
  return std::to_string(n) + " " + (n == 1 ? singular : plural);
}

std::string window_noun(int64_t window_us) {
  constexpr int64_t kMinute = 60LL * 1000 * 1000;
  if (window_us == kMinute) return "minute";
  if (window_us == 60 * kMinute) return "hour";
  if (window_us == 24 * 60 * kMinute) return "day";
  return "window";
}

std::string values_phrase(const Stream& stream, const std::vector<std::optional<std::string>>& values) {
  // A count and one sum read as "3 orders, 68.50" (the sum of what was counted); any other value
  // is named by its column, or a reader cannot tell which is which.
  const auto& aggregates = stream.aggregates;
  bool count_and_sum = aggregates.size() == 2 && aggregates[0].function == "count" && aggregates[1].function == "sum";
  std::string phrase;
  for (size_t i = 0; i < aggregates.size() && i < values.size(); i++) {
    const auto& a = aggregates[i];
    std::string v = values[i] ? *values[i] : "NULL";
    if (!phrase.empty()) phrase += ", ";
    if (a.function == "count" && values[i]) phrase += count_of(std::stoll(v), a.name);
    else if (count_and_sum) phrase += v;
    else phrase += a.name + " " + v;
  }
  return phrase;
}

std::optional<std::string> value_text(const std::string& type, const std::optional<std::string>& text) {
  if (!text || (type != "DOUBLE" && type != "FLOAT")) return text;
  char* end = nullptr;
  double value = std::strtod(text->c_str(), &end);
  if (end == text->c_str() || *end != '\0') return text;  // inf, nan and the like as they are
  // 12 significant digits, and for a large value its integer digits and one decimal.
  int integer_digits = std::fabs(value) >= 1 ? static_cast<int>(std::floor(std::log10(std::fabs(value)))) + 1 : 1;
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", std::max(12, std::min(integer_digits + 1, 17)), value);
  return std::string(buffer);
}

std::string percent_text(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", fraction * 100);
  std::string text = buffer;
  if (text.ends_with(".0")) text.resize(text.size() - 2);
  return text + "%";
}

std::string duration_words(int64_t us) {
  constexpr int64_t kSecond = 1000000, kMinute = 60 * kSecond, kHour = 60 * kMinute, kDay = 24 * kHour;
  if (us >= kDay && us % kDay == 0) return count_of(us / kDay, "days");
  if (us >= kHour && us % kHour == 0) return count_of(us / kHour, "hours");
  if (us >= kMinute && us % kMinute == 0) return count_of(us / kMinute, "minutes");
  if (us % kSecond == 0) return count_of(us / kSecond, "seconds");
  return count_of(us / 1000, "milliseconds");
}

}  // namespace lakestream
