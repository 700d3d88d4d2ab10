// Spelling suggestions for the pipeline file's errors: "unknown key 'tabel'; did you mean 'table'?".
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lakestream {

// The candidate closest to `word` when it is close enough to be a likely typo (a letter or two
// off, swapped, or another case); nullopt when nothing is that close.
std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates);

// "; did you mean 'x'?" for the closest candidate, or "" when there is none.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace lakestream
