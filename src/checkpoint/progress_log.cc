#include "checkpoint/progress_log.h"

#include <cstdio>
#include <deque>
#include <fstream>

#include "util/error.h"
#include "util/files.h"

namespace lakestream {

ProgressLog::ProgressLog(std::string checkpoint_dir, int64_t max_bytes)
    : dir_(std::move(checkpoint_dir)), max_bytes_(max_bytes) {}

void ProgressLog::append(const nlohmann::json& record) {
  make_dirs(dir_, 0700);
  std::string line = record.dump() + "\n";
  int64_t size = file_size_or_zero(path());
  if (size > 0 && size + static_cast<int64_t>(line.size()) > max_bytes_) {
    if (std::rename(path().c_str(), rotated_path().c_str()) != 0)
      throw Error("cannot rotate the progress log " + path() + "; check the folder's permissions");
  }
  append_to_file(path(), line, 0600);
}

std::vector<nlohmann::json> ProgressLog::read(size_t limit) const {
  std::deque<nlohmann::json> records;
  for (const std::string& file : {rotated_path(), path()}) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (record.is_discarded() || !record.is_object()) continue;
      records.push_back(std::move(record));
      if (records.size() > limit) records.pop_front();
    }
  }
  return {records.begin(), records.end()};
}

std::optional<nlohmann::json> ProgressLog::last() const {
  auto records = read(1);
  if (records.empty()) return std::nullopt;
  return records.back();
}

}  // namespace lakestream
