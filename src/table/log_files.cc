// Naming and listing of Delta log files. Version numbers are 20-digit zero-padded so that the
// folder's name order is the version order.
#include "table/log_files.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "storage/local_store.h"
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

namespace {

// The version a log file's name starts with (20 digits), and the rest of the name after its dot.
// By hand rather than by std::regex: a log holds a file per commit, tens of thousands after a day.
bool split_log_name(const std::string& name, int64_t& version, std::string& rest) {
  if (name.size() < 21 || name[20] != '.') return false;
  for (int i = 0; i < 20; i++)
    if (name[i] < '0' || name[i] > '9') return false;
  version = std::stoll(name.substr(0, 20));
  rest = name.substr(21);
  return true;
}

bool all_of_class(const std::string& text, size_t from, size_t count, bool (*is)(char)) {
  if (from + count > text.size()) return false;
  for (size_t i = from; i < from + count; i++)
    if (!is(text[i])) return false;
  return true;
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// `checkpoint.<8>-<4>-<4>-<4>-<12>.parquet` or `.json`: a v2 checkpoint's top-level file.
bool is_uuid_checkpoint(const std::string& rest) {
  const std::string head = "checkpoint.";
  if (rest.rfind(head, 0) != 0 || rest.size() < head.size() + 36) return false;
  size_t at = head.size();
  for (size_t group : {8, 4, 4, 4, 12}) {
    if (!all_of_class(rest, at, group, is_hex)) return false;
    at += group;
    if (group != 12) {
      if (rest[at] != '-') return false;
      at++;
    }
  }
  std::string ext = rest.substr(at);
  return ext == ".parquet" || ext == ".json";
}

// `checkpoint.<10 digits part>.<10 digits parts>.parquet`: one part of a multi-part checkpoint.
bool is_part_checkpoint(const std::string& rest, int64_t& part, int64_t& parts) {
  const std::string head = "checkpoint.";
  if (rest.size() != head.size() + 10 + 1 + 10 + 8 || rest.rfind(head, 0) != 0) return false;
  size_t at = head.size();
  if (!all_of_class(rest, at, 10, is_digit) || rest[at + 10] != '.' || !all_of_class(rest, at + 11, 10, is_digit) ||
      rest.substr(at + 21) != ".parquet")
    return false;
  part = std::stoll(rest.substr(at, 10));
  parts = std::stoll(rest.substr(at + 11, 10));
  return true;
}

// Adds the commits and complete checkpoints among `files` (keys under _delta_log/) to `listing`.
void add_log_files(LogListing& listing, const std::vector<storage::ObjectInfo>& files) {
  // version -> (number of parts, part number -> file)
  std::map<int64_t, std::pair<int64_t, std::map<int64_t, storage::ObjectInfo>>> parts;
  const std::string prefix = "_delta_log/";
  for (const auto& file : files) {
    if (!file.key.starts_with(prefix)) continue;
    std::string name = file.key.substr(prefix.size());
    int64_t version = 0, part = 0, part_count = 0;
    std::string rest;
    if (name.find('/') != std::string::npos || !split_log_name(name, version, rest)) continue;
    if (rest == "json") {
      listing.commits.insert(version);
    } else if (rest == "checkpoint.parquet" || is_uuid_checkpoint(rest)) {
      listing.checkpoints[version] = {file};
    } else if (is_part_checkpoint(rest, part, part_count)) {
      auto& entry = parts[version];
      entry.first = part_count;
      entry.second[part] = file;
    }
  }
  for (const auto& [version, entry] : parts) {
    if (listing.checkpoints.count(version) || static_cast<int64_t>(entry.second.size()) != entry.first) continue;
    std::vector<storage::ObjectInfo> part_files;
    for (const auto& [part, file] : entry.second) part_files.push_back(file);
    listing.checkpoints[version] = part_files;
  }
}

}  // namespace

LogListing list_log(const Table& table) { return log_listing_of(list_table_files(table, "_delta_log/")); }

LogListing log_listing_of(const std::vector<storage::ObjectInfo>& files) {
  LogListing listing;
  add_log_files(listing, files);
  return listing;
}

namespace {

// The keys of the checkpoint a `_last_checkpoint` hint names: its parts, or a v2 checkpoint's
// top-level file, or the classic single file.
std::vector<std::string> hinted_checkpoint_keys(const nlohmann::json& hint, int64_t version) {
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "_delta_log/%020lld.checkpoint", static_cast<long long>(version));
  std::vector<std::string> keys;
  if (hint.contains("v2Checkpoint") && hint["v2Checkpoint"].is_object() && hint["v2Checkpoint"].contains("path") &&
      hint["v2Checkpoint"]["path"].is_string()) {
    std::string path = hint["v2Checkpoint"]["path"].get<std::string>();
    if (path.find('/') == std::string::npos) keys.push_back("_delta_log/" + path);
  } else if (hint.contains("parts") && hint["parts"].is_number_integer() && hint["parts"].get<int64_t>() > 0) {
    int64_t parts = hint["parts"].get<int64_t>();
    for (int64_t part = 1; part <= parts; part++) {
      char name[160];
      std::snprintf(name, sizeof name, "%s.%010lld.%010lld.parquet", prefix, static_cast<long long>(part),
                    static_cast<long long>(parts));
      keys.push_back(name);
    }
  } else {
    keys.push_back(std::string(prefix) + ".parquet");
  }
  return keys;
}

// On an object store, where each request is a round trip, the tail is listed ten versions at a
// time: the keys `_delta_log/<the first 19 of 20 digits>` are the commits and checkpoints of
// those ten versions. From the hint's ten on, until ten whose last commit is not there yet
// (commits are consecutive, so none comes after it): one or two small listings, however long the
// log is.
std::optional<LogListing> object_store_log_tail(const Table& table, const nlohmann::json& hint, int64_t version) {
  LogListing listing;
  for (int64_t tens = version / 10;; tens++) {
    char prefix[40];
    std::snprintf(prefix, sizeof prefix, "_delta_log/%019lld", static_cast<long long>(tens));
    add_log_files(listing, list_table_files(table, prefix));
    if (!listing.commits.count(tens * 10 + 9)) break;
  }
  // The hinted checkpoint, whole (a newer one among the ten only helps).
  auto hinted = listing.checkpoints.find(version);
  if (hinted == listing.checkpoints.end()) return std::nullopt;
  std::set<std::string> listed;
  for (const auto& file : hinted->second) listed.insert(file.key);
  for (const auto& key : hinted_checkpoint_keys(hint, version))
    if (!listed.count(key)) return std::nullopt;
  return listing;
}

}  // namespace

std::optional<LogListing> list_log_tail(const Table& table) {
  std::optional<std::string> text = read_table_file(table, "_delta_log/_last_checkpoint");
  if (!text) return std::nullopt;
  nlohmann::json hint = nlohmann::json::parse(*text, nullptr, false);
  if (!hint.is_object() || !hint.contains("version") || !hint["version"].is_number_integer()) return std::nullopt;
  int64_t version = hint["version"].get<int64_t>();
  if (version < 0) return std::nullopt;
  if (table.is_remote()) return object_store_log_tail(table, hint, version);
  LogListing listing;
  std::vector<storage::ObjectInfo> files;
  for (const auto& key : hinted_checkpoint_keys(hint, version)) {
    auto file = storage::local_object_info(table.path(), key);
    if (!file) return std::nullopt;
    files.push_back(*file);
  }
  listing.checkpoints[version] = std::move(files);
  if (path_exists(commit_file_path(table.path(), version))) listing.commits.insert(version);
  for (int64_t next = version + 1; path_exists(commit_file_path(table.path(), next)); next++) listing.commits.insert(next);
  return listing;
}

LogListing list_log_for(const Table& table, std::optional<int64_t> version) {
  std::optional<LogListing> tail = list_log_tail(table);
  if (tail && (!version || *version >= tail->checkpoints.begin()->first)) return std::move(*tail);
  return list_log(table);
}

}  // namespace lakestream::delta
