#include "checkpoint/progress_log.h"

#include <cstdio>
#include <algorithm>
#include <fstream>

#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

ProgressLog::ProgressLog(std::string checkpoint_dir, int64_t max_bytes)
    : dir_(std::move(checkpoint_dir)), max_bytes_(max_bytes) {}

void ProgressLog::append(const nlohmann::json& record) {
  CpuScope cpu_scope("progress_log.append");
  make_dirs(dir_, 0700);
  std::string line = record.dump() + "\n";
  int64_t size = file_size_or_zero(path());
  if (size > 0 && size + static_cast<int64_t>(line.size()) > max_bytes_) {
    if (std::rename(path().c_str(), rotated_path().c_str()) != 0)
      throw Error("cannot rotate the progress log " + path() + "; check the folder's permissions");
  }
  append_to_file(path(), line, 0600);
}

namespace {

// Adds the records of `file` to `newest_first`, newest first, until it holds `limit`. The file is
// read from its end in blocks, so that the newest few records of a full log (megabytes) cost
// what they are, not what the log is.
void add_newest_records(const std::string& file, size_t limit, std::vector<nlohmann::json>& newest_first) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return;
  constexpr std::streamoff kBlock = 64 << 10;
  std::streamoff end = in.tellg();
  std::string cut;  // the start of the line that the block read last began within
  while (end > 0 && newest_first.size() < limit) {
    std::streamoff start = std::max<std::streamoff>(0, end - kBlock);
    std::string text(static_cast<size_t>(end - start), '\0');
    in.seekg(start);
    if (!in.read(text.data(), static_cast<std::streamsize>(text.size()))) return;
    text += cut;
    // Before the first newline is the end of a line that began in an earlier block.
    size_t from = 0;
    if (start > 0) {
      size_t newline = text.find('\n');
      if (newline == std::string::npos) {
        cut = std::move(text);
        end = start;
        continue;
      }
      from = newline + 1;
    }
    cut = text.substr(0, from);
    size_t line_end = text.size();
    while (line_end > from && newest_first.size() < limit) {
      size_t newline = line_end > from + 1 ? text.rfind('\n', line_end - 2) : std::string::npos;
      size_t line_start = newline == std::string::npos || newline < from ? from : newline + 1;
      auto record = nlohmann::json::parse(text.begin() + static_cast<std::ptrdiff_t>(line_start),
                                          text.begin() + static_cast<std::ptrdiff_t>(line_end), nullptr,
                                          /*allow_exceptions=*/false);
      if (!record.is_discarded() && record.is_object()) newest_first.push_back(std::move(record));
      line_end = line_start;
    }
    end = start;
  }
  if (end == 0 && !cut.empty() && newest_first.size() < limit) {
    auto record = nlohmann::json::parse(cut, nullptr, /*allow_exceptions=*/false);
    if (!record.is_discarded() && record.is_object()) newest_first.push_back(std::move(record));
  }
}

}  // namespace

std::vector<nlohmann::json> ProgressLog::read(size_t limit) const {
  std::vector<nlohmann::json> records;
  add_newest_records(path(), limit, records);
  add_newest_records(rotated_path(), limit, records);
  return {records.rbegin(), records.rend()};
}

std::optional<nlohmann::json> ProgressLog::last() const {
  auto records = read(1);
  if (records.empty()) return std::nullopt;
  return records.back();
}

}  // namespace lakestream
