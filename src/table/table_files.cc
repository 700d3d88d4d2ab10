// The stores of each remote table URL, opened on first use and kept for the process (their
// connections are reused); each is used by one thread at a time, as the stores' HTTP clients
// require, and a table has as many as threads use it at once. Local tables use util/files.h (and
// the local store's listing), exactly as before the stores existed.
#include "table/table_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>

#include "storage/local_store.h"
#include "storage/storage_url.h"
#include "table/file_cache.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

}  // namespace

// A table's open stores not in use. One store per table made each of its requests wait for the
// one in flight: a service's bronze writer waited behind the downstream streams' reads of bronze's
// data files and the checkpoints' thread's upload of bronze's checkpoint, up to a second a batch
// on Azurite after a restart, when every stream catches up at once.
struct StorePool {
  std::mutex mutex;
  std::vector<std::unique_ptr<storage::ObjectStore>> idle;
};

namespace {

struct TableStores {
  std::mutex mutex;
  TableStoreOptions options;  // the process's lake
  std::map<std::string, std::shared_ptr<StorePool>> by_table;
  std::shared_ptr<FileCache> cache;
  // Every cache in use by folder: a table with its own settings and the lake share the cache of
  // one folder rather than two caches evicting each other's files.
  std::map<std::string, std::weak_ptr<FileCache>> caches;
};

TableStores& stores() {
  static TableStores instance;
  return instance;
}

// The cache of `options`' folder; the caller holds stores().mutex.
std::shared_ptr<FileCache> cache_of(TableStores& all, const TableStoreOptions& options) {
  std::string dir = options.cache_dir.empty() ? absolute_path("lakestream-cache") : options.cache_dir;
  if (auto shared = all.caches[dir].lock()) return shared;
  auto made = std::make_shared<FileCache>(dir, options.cache_bytes);
  all.caches[dir] = made;
  return made;
}

// Runs `action` on a store of the remote table that no other thread is using: an idle one of the
// table's own stores or of the process's lake's stores of that URL, or a new one.
template <typename Action>
auto with_store(const Table& table, Action action) {
  std::shared_ptr<StorePool> pool;
  storage::StoreSettings settings;
  if (OwnStore* own = table.own_store()) {
    std::lock_guard lock(own->mutex);
    if (!own->stores) own->stores = std::make_shared<StorePool>();
    pool = own->stores;
    settings = own->options.settings;
  } else {
    TableStores& all = stores();
    std::lock_guard lock(all.mutex);
    auto& slot = all.by_table[table.path()];
    if (!slot) slot = std::make_shared<StorePool>();
    pool = slot;
    settings = all.options.settings;
  }
  std::unique_ptr<storage::ObjectStore> store;
  {
    std::lock_guard lock(pool->mutex);
    if (!pool->idle.empty()) {
      store = std::move(pool->idle.back());
      pool->idle.pop_back();
    }
  }
  if (!store) store = storage::open_store(table.path(), settings);
  // Back to the pool however `action` ends: a failed request leaves the store usable.
  struct GiveBack {
    StorePool& pool;
    std::unique_ptr<storage::ObjectStore>& store;
    ~GiveBack() {
      std::lock_guard lock(pool.mutex);
      pool.idle.push_back(std::move(store));
    }
  } give_back{*pool, store};
  return action(*store);
}

FileCache& cache(const Table& table) {
  TableStores& all = stores();
  std::lock_guard lock(all.mutex);
  if (OwnStore* own = table.own_store()) {
    if (!own->cache) own->cache = cache_of(all, own->options);
    return *own->cache;
  }
  if (!all.cache) all.cache = cache_of(all, all.options);
  return *all.cache;
}

std::string suffix_of(const std::string& key) {
  std::string name = fs::path(key).filename().string();
  size_t dot = name.find('.');
  return dot == std::string::npos ? "" : name.substr(dot);
}

void sync_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + path + " to sync it: " + std::strerror(errno));
  int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) throw Error("cannot fsync " + path + ": " + std::strerror(errno));
}

}  // namespace

void configure_table_stores(const TableStoreOptions& options) {
  TableStores& all = stores();
  std::lock_guard lock(all.mutex);
  all.options = options;
  all.by_table.clear();
  all.cache.reset();
}

bool is_remote_table(const std::string& table_path) { return storage::is_object_store_url(table_path); }

std::string normal_table_path(const std::string& table_path) {
  if (!is_remote_table(table_path)) return absolute_path(storage::parse_storage_url(table_path).path);
  std::string url = table_path;
  while (url.size() > 1 && url.back() == '/') url.pop_back();
  return url;
}

std::vector<storage::ObjectInfo> list_table_files(const Table& table, const std::string& prefix) {
  if (table.is_remote()) return with_store(table, [&](storage::ObjectStore& s) { return s.list(prefix); });
  return storage::open_local_store(table.path())->list(prefix);
}

void list_table_files_from_start(const Table& table, const std::string& prefix,
                                 const std::function<bool(std::vector<storage::ObjectInfo>)>& page) {
  if (!table.is_remote()) {
    page(storage::open_local_store(table.path())->list(prefix));
    return;
  }
  std::string token;
  do {
    storage::ListPage listed = with_store(table, [&](storage::ObjectStore& s) { return s.list_page(prefix, token); });
    token = std::move(listed.next);
    if (!page(std::move(listed.objects))) return;
  } while (!token.empty());
}

std::optional<std::string> read_table_file(const Table& table, const std::string& key) {
  if (table.is_remote()) return with_store(table, [&](storage::ObjectStore& s) { return s.get(key); });
  std::string path = join_path(table.path(), key);
  if (!path_exists(path)) return std::nullopt;
  return read_file(path);
}

bool put_table_file_if_absent(const Table& table, const std::string& key, const std::string& data) {
  if (table.is_remote())
    return with_store(table, [&](storage::ObjectStore& s) { return s.put_if_absent(key, data); });
  std::string path = join_path(table.path(), key);
  make_dirs(fs::path(path).parent_path().string());
  return write_file_if_absent(path, data);
}

void put_table_file(const Table& table, const std::string& key, const std::string& data) {
  if (table.is_remote()) return with_store(table, [&](storage::ObjectStore& s) { s.put(key, data); });
  std::string path = join_path(table.path(), key);
  make_dirs(fs::path(path).parent_path().string());
  write_file_atomic(path, data);
}

void remove_table_file(const Table& table, const std::string& key) {
  if (table.is_remote()) return with_store(table, [&](storage::ObjectStore& s) { s.remove(key); });
  std::string path = join_path(table.path(), key);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw Error("cannot delete " + path + ": " + std::strerror(errno) + "; fix its permissions and run again");
}

std::string staging_path(const Table& table, const std::string& key) {
  if (table.is_remote()) return cache(table).staging_path(fs::path(key).filename().string());
  std::string path = join_path(table.path(), key);
  make_dirs(fs::path(path).parent_path().string());
  return path;
}

void publish_staged_file(const Table& table, const std::string& key, const std::string& staged_path) {
  if (!table.is_remote()) {
    // A data file must be on disk before a commit names it, or a crash could leave a table whose
    // log points at a file that never made it.
    sync_file(staged_path);
    sync_dir(fs::path(staged_path).parent_path().string());
    return;
  }
  std::string data = read_file(staged_path);
  with_store(table, [&](storage::ObjectStore& s) { s.put(key, data); });
  cache(table).adopt(join_path(table.path(), key), suffix_of(key), static_cast<int64_t>(data.size()), staged_path);
}

void discard_staged_file(const Table&, const std::string& staged_path) { remove_all(staged_path); }

std::string readable_path(const Table& table, const std::string& key, int64_t size) {
  if (!table.is_remote()) return join_path(table.path(), key);
  std::string name = join_path(table.path(), key);
  return cache(table).copy_of(name, suffix_of(key), size, [&] {
    auto data = with_store(table, [&](storage::ObjectStore& s) { return s.get(key); });
    if (!data)
      throw Error("the table names the file " + name + ", which is not on the store: the table cannot be read. "
                  "Restore the file from a backup (lakestream vacuum never deletes a file the current version names)");
    return std::move(*data);
  });
}

std::vector<std::string> missing_table_files(const Table& table, const std::vector<std::string>& keys) {
  std::vector<std::string> missing;
  if (keys.empty()) return missing;  // on a store, no listing for nothing to look for
  if (!table.is_remote()) {
    for (const auto& key : keys)
      if (!path_exists(join_path(table.path(), key))) missing.push_back(key);
    return missing;
  }
  // Only the folder the keys share: a sidecar's check lists `_delta_log/_sidecars/`, not every data
  // file and a month of commits.
  std::string folder = keys.front().substr(0, keys.front().rfind('/') + 1);
  for (const auto& key : keys)
    while (!key.starts_with(folder)) folder = folder.substr(0, folder.rfind('/', folder.size() - 2) + 1);
  std::set<std::string> there;
  for (const auto& object : list_table_files(table, folder)) there.insert(object.key);
  for (const auto& key : keys)
    if (!there.count(key)) missing.push_back(key);
  return missing;
}

}  // namespace lakestream::delta
