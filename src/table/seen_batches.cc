#include "table/seen_batches.h"

#include <charconv>

namespace lakestream::delta {

namespace {

std::optional<int64_t> whole_number(const std::string& text, size_t begin, size_t end) {
  int64_t value = 0;
  auto [last, error] = std::from_chars(text.data() + begin, text.data() + end, value);
  if (error != std::errc() || last != text.data() + end || begin == end) return std::nullopt;
  return value;
}

}  // namespace

std::string seen_batches_text(const std::vector<SeenBatchRun>& runs) {
  std::string text;
  for (const auto& run : runs)
    text += (text.empty() ? "" : ",") + std::to_string(run.first_row) + ":" + std::to_string(run.batch);
  return text;
}

std::optional<std::vector<SeenBatchRun>> seen_batches_of(const AddFile& file) {
  auto tag = file.tags.find(kSeenBatchesTag);
  if (tag == file.tags.end()) return std::nullopt;
  const std::string& text = tag->second;
  std::vector<SeenBatchRun> runs;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t comma = text.find(',', begin);
    if (comma == std::string::npos) comma = text.size();
    size_t colon = text.find(':', begin);
    if (colon == std::string::npos || colon > comma) return std::nullopt;
    auto first_row = whole_number(text, begin, colon);
    auto batch = whole_number(text, colon + 1, comma);
    if (!first_row || !batch) return std::nullopt;
    if (runs.empty() ? *first_row != 0 : *first_row <= runs.back().first_row) return std::nullopt;
    runs.push_back({*first_row, *batch});
    begin = comma + 1;
  }
  if (runs.empty()) return std::nullopt;
  return runs;
}

}  // namespace lakestream::delta
