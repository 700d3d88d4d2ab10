// The files of `_delta_log/`: their names, and which commits and checkpoints a table holds.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lakestream::delta {

std::string log_dir(const std::string& table_path);
// `_delta_log/00000000000000000007.json`
std::string commit_file_path(const std::string& table_path, int64_t version);

struct LogListing {
  std::set<int64_t> commits;                              // versions with a JSON commit file
  std::map<int64_t, std::vector<std::string>> checkpoints;  // version -> its complete set of parquet files
  // The newest version the log can produce (-1 when it is empty).
  int64_t latest() const;
  // The newest checkpoint at or below `version`, or -1.
  int64_t checkpoint_at_or_below(int64_t version) const;
};

// Lists the log folder. Multi-part checkpoints count only when all their parts are there.
LogListing list_log(const std::string& table_path);

}  // namespace lakestream::delta
