#include "table/table.h"

#include <map>

#include "table/file_cache.h"
#include "table/table_files.h"

namespace lakestream::delta {
namespace {

// The stores of tables with their own settings, by path and settings, kept for the process as
// the lake's are: a handle made again for the same table the same way (a stream's each cycle,
// each compaction) reuses the open store and its connection instead of resolving credentials
// and connecting again.
std::mutex own_stores_mutex;
std::map<std::string, std::shared_ptr<OwnStore>> own_stores;

std::string reach_key(const std::string& path, const TableStoreOptions& options) {
  std::string key = path + '\n' + options.cache_dir + '\n' + std::to_string(options.cache_bytes);
  for (const auto& [name, value] : options.settings) key += '\n' + name + '=' + value;
  return key;
}

}  // namespace

Table::Table(std::string path) : path_(std::move(path)) {}

Table::Table(const char* path) : path_(path) {}

Table::Table(std::string path, const TableStoreOptions& options) : path_(std::move(path)) {
  if (!is_remote_table(path_)) return;  // a folder is reached the same way whatever the settings
  std::lock_guard lock(own_stores_mutex);
  auto& slot = own_stores[reach_key(normal_table_path(path_), options)];
  if (!slot) {
    slot = std::make_shared<OwnStore>();
    slot->options = options;
  }
  own_ = slot;
}

bool Table::is_remote() const { return is_remote_table(path_); }

Table Table::normal() const {
  Table same = *this;
  same.path_ = normal_table_path(path_);
  return same;
}

}  // namespace lakestream::delta
