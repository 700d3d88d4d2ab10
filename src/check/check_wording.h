// The words check and recount use for counts, windows and values, so that their lines read as
// sentences: "1 order", "4 orders, 90.50", "the hour", "09:00".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"

namespace lakestream {

// "1 order" / "4 orders" for a noun given in the plural or singular.
std::string count_of(int64_t n, const std::string& noun);

// What one window is called: "hour", "day", "minute", else "window".
std::string window_noun(int64_t window_us);

// A window's values as a phrase, in the order of the stream's aggregates: a count as "4 orders",
// another value with its column's name ("total_amount 375.35"), except in a window of exactly a
// count and a sum, where the sum follows bare ("4 orders, 90.50").
std::string values_phrase(const Stream& stream, const std::vector<std::optional<std::string>>& values);

// A value as its column's type (DuckDB's name) prints it: a double rounded to 12 significant
// digits (at least its integer digits and one decimal), so that the rounding of a sum of doubles
// ("8496.830000000002") does not show; any other type as DuckDB prints it (a decimal with its scale).
std::optional<std::string> value_text(const std::string& type, const std::optional<std::string>& text);

// A fraction as a percentage with at most one decimal: 0.25 -> "25%", 0.005 -> "0.5%".
std::string percent_text(double fraction);

// A duration in words: "2 hours", "90 minutes", "45 seconds".
std::string duration_words(int64_t us);

}  // namespace lakestream
