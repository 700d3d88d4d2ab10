#include "storage/local_store.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <system_error>

#include "util/error.h"
#include "util/files.h"

namespace lakestream::storage {
namespace {

namespace fs = std::filesystem;

int64_t modified_ms(fs::file_time_type written) {
  auto modified = std::chrono::file_clock::to_sys(written);
  return std::chrono::duration_cast<std::chrono::milliseconds>(modified.time_since_epoch()).count();
}

class LocalStore : public ObjectStore {
 public:
  explicit LocalStore(std::string root) : root_(std::move(root)) {}

  std::optional<std::string> get(const std::string& key) override {
    std::string path = join_path(root_, key);
    if (!path_exists(path)) return std::nullopt;
    return read_file(path);
  }

  void put(const std::string& key, const std::string& data) override {
    std::string path = join_path(root_, key);
    make_dirs(fs::path(path).parent_path().string());
    write_file_atomic(path, data);
  }

  bool put_if_absent(const std::string& key, const std::string& data) override {
    std::string path = join_path(root_, key);
    make_dirs(fs::path(path).parent_path().string());
    return write_file_if_absent(path, data);
  }

  ListPage list_page(const std::string& prefix, const std::string& /*token: one page*/) override {
    // Walk only the folder the prefix names (its part before the last '/').
    ListPage page;
    std::vector<ObjectInfo>& out = page.objects;
    std::string folder = prefix.substr(0, prefix.rfind('/') == std::string::npos ? 0 : prefix.rfind('/'));
    fs::path start = folder.empty() ? fs::path(root_) : fs::path(root_) / folder;
    std::error_code ec;
    if (!fs::is_directory(start, ec)) return page;
    // A key is the entry's path after the root's: the iterator's paths all start with `start`.
    // (fs::relative would resolve every component of every path: a listing of the 10,000
    // commits of a day's log took a third of a second.)
    const std::string root = fs::path(root_).generic_string();
    const size_t skip = root.size() + (root.empty() || root.back() == '/' ? 0 : 1);
    for (auto it = fs::recursive_directory_iterator(start, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec)) continue;
      std::string key = it->path().generic_string().substr(skip);
      if (key.rfind(prefix, 0) != 0) continue;
      out.push_back({key, static_cast<int64_t>(it->file_size(ec)), modified_ms(it->last_write_time(ec))});
    }
    std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    return page;
  }

  void remove(const std::string& key) override {
    std::error_code ec;
    fs::remove(join_path(root_, key), ec);
    if (ec) throw Error("cannot delete " + join_path(root_, key) + ": " + ec.message());
  }

  std::string describe() const override { return root_; }

 private:
  std::string root_;
};

}  // namespace

std::unique_ptr<ObjectStore> open_local_store(const std::string& folder) {
  return std::make_unique<LocalStore>(folder);
}

std::optional<ObjectInfo> local_object_info(const std::string& folder, const std::string& key) {
  std::error_code ec;
  fs::path path = join_path(folder, key);
  auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  auto written = fs::last_write_time(path, ec);
  if (ec) return std::nullopt;
  return ObjectInfo{key, static_cast<int64_t>(size), modified_ms(written)};
}

}  // namespace lakestream::storage
