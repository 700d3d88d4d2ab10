// Naming and listing of Delta log files. Version numbers are 20-digit zero-padded so that the
// folder's name order is the version order.
#include "table/log_files.h"

#include <cstdio>
#include <regex>

#include "table/table_files.h"
#include "util/files.h"

namespace lakestream::delta {

std::string log_dir(const std::string& table_path) { return join_path(table_path, "_delta_log"); }

std::string commit_key(int64_t version) {
  char name[64];
  std::snprintf(name, sizeof name, "_delta_log/%020lld.json", static_cast<long long>(version));
  return name;
}

std::string commit_file_path(const std::string& table_path, int64_t version) {
  return join_path(table_path, commit_key(version));
}

int64_t LogListing::latest() const {
  int64_t newest = -1;
  if (!commits.empty()) newest = *commits.rbegin();
  if (!checkpoints.empty()) newest = std::max(newest, checkpoints.rbegin()->first);
  return newest;
}

int64_t LogListing::checkpoint_at_or_below(int64_t version) const {
  auto it = checkpoints.upper_bound(version);
  if (it == checkpoints.begin()) return -1;
  return std::prev(it)->first;
}

LogListing list_log(const std::string& table_path) {
  static const std::regex commit_name(R"((\d{20})\.json)");
  static const std::regex single_checkpoint(R"((\d{20})\.checkpoint\.parquet)");
  static const std::regex part_checkpoint(R"((\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet)");
  // A v2 checkpoint: one top-level file named by a UUID, Parquet or JSON, with sidecars or not.
  static const std::regex uuid_checkpoint(R"((\d{20})\.checkpoint\.[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\.(parquet|json))");
  LogListing listing;
  // version -> (number of parts, part number -> file)
  std::map<int64_t, std::pair<int64_t, std::map<int64_t, storage::ObjectInfo>>> parts;
  const std::string prefix = "_delta_log/";
  for (const auto& file : list_table_files(table_path, prefix)) {
    std::string name = file.key.substr(prefix.size());
    std::smatch m;
    if (std::regex_match(name, m, commit_name)) {
      listing.commits.insert(std::stoll(m[1]));
    } else if (std::regex_match(name, m, single_checkpoint) || std::regex_match(name, m, uuid_checkpoint)) {
      listing.checkpoints[std::stoll(m[1])] = {file};
    } else if (std::regex_match(name, m, part_checkpoint)) {
      auto& entry = parts[std::stoll(m[1])];
      entry.first = std::stoll(m[3]);
      entry.second[std::stoll(m[2])] = file;
    }
  }
  for (const auto& [version, entry] : parts) {
    if (listing.checkpoints.count(version) || static_cast<int64_t>(entry.second.size()) != entry.first) continue;
    std::vector<storage::ObjectInfo> files;
    for (const auto& [part, file] : entry.second) files.push_back(file);
    listing.checkpoints[version] = files;
  }
  return listing;
}

}  // namespace lakestream::delta
