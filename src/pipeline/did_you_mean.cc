// Edit distance with transpositions (optimal string alignment), case-insensitive, so that the
// usual typos (a missing, extra, wrong or swapped letter; Table for table) are caught.
#include "pipeline/did_you_mean.h"

#include <algorithm>
#include <cctype>

namespace lakestream {
namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

size_t typo_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> closest_spelling(std::string_view word, const std::vector<std::string>& candidates) {
  // One edit for short words, up to a third of the word for longer ones: "kind" vs "key" is not a typo.
  size_t allowed = std::max<size_t>(1, std::min<size_t>(3, word.size() / 3));
  std::optional<std::string> best;
  size_t best_distance = allowed + 1;
  for (const auto& candidate : candidates) {
    size_t distance = typo_distance(word, candidate);
    if (distance < best_distance && distance < std::max(word.size(), candidate.size())) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  auto best = closest_spelling(word, candidates);
  return best ? "; did you mean '" + *best + "'?" : "";
}

}  // namespace lakestream
