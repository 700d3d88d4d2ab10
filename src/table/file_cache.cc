// Copies are plain files in DIR/files, named by a SHA-256 of what they are a copy of; the last
// use is the file's modification time, so that the order survives the process. Staged uploads
// live in DIR/staging until they are uploaded and adopted.
#include "table/file_cache.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "storage/sha256.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

// How long a copy this process handed out is kept even over the cap: a query or a batch built
// on it reads it within that time.
constexpr auto kInUseFor = std::chrono::minutes(10);
// Staged files older than this belong to a writer that died before uploading them.
constexpr auto kStagedOrphanAfter = std::chrono::hours(1);
// A listing stats every copy: once each add, it made a service's batches on a store slower as
// the cache filled (a copy per data file; 4,600 copies after 4 minutes of the store soak, and the
// bronze writer's CPU per batch tripled). It is done when this process's adds may have passed the
// cap, and this often for what other processes sharing the cache added.
constexpr auto kListAtLeastEvery = std::chrono::minutes(1);

// A cache needs no fsync: a copy torn by a power loss has the wrong size and is fetched again.
void write_whole(const std::string& path, const std::string& data) {
  std::string temp = path + "." + new_uuid() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    if (!out) {
      remove_all(temp);
      throw Error("cannot write the cache file " + temp + "; check the space and permissions of the cache folder");
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    remove_all(temp);
    throw Error("cannot write the cache file " + path + ": " + ec.message());
  }
}

}  // namespace

FileCache::FileCache(std::string dir, int64_t cap_bytes) : dir_(std::move(dir)), cap_bytes_(cap_bytes) {}

std::string FileCache::path_for(const std::string& identity, const std::string& suffix, int64_t size) const {
  return join_path(join_path(dir_, "files"), storage::sha256_hex(identity + "\n" + std::to_string(size)) + suffix);
}

void FileCache::use(const std::string& path) {
  in_use_[path] = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // the LRU order
}

std::string FileCache::copy_of(const std::string& identity, const std::string& suffix, int64_t size,
                               const std::function<std::string()>& download) {
  std::string path = path_for(identity, suffix, size);
  {
    std::lock_guard lock(mutex_);
    evict_once();
    if (file_size_or_zero(path) == size && path_exists(path)) {
      use(path);
      return path;
    }
  }
  std::string data = download();
  if (static_cast<int64_t>(data.size()) != size)
    throw Error(identity + " has " + std::to_string(data.size()) + " bytes on the store, but the table's log says " +
                std::to_string(size) + "; the file was replaced behind the table's back");
  std::lock_guard lock(mutex_);
  make_dirs(join_path(dir_, "files"));
  write_whole(path, data);
  use(path);
  added(size);
  return path;
}

void FileCache::adopt(const std::string& identity, const std::string& suffix, int64_t size, const std::string& path) {
  std::string copy = path_for(identity, suffix, size);
  std::lock_guard lock(mutex_);
  evict_once();
  make_dirs(join_path(dir_, "files"));
  std::error_code ec;
  fs::rename(path, copy, ec);
  if (ec) {
    remove_all(path);  // only a copy: it is fetched when needed
    return;
  }
  use(copy);
  added(size);
}

std::string FileCache::staging_path(const std::string& name) {
  std::string staging = join_path(dir_, "staging");
  make_dirs(staging);
  return join_path(staging, new_uuid() + "-" + name);
}

void FileCache::evict_once() {
  if (swept_) return;
  swept_ = true;
  evict();
}

void FileCache::added(int64_t size) {
  known_bytes_ += size;
  if (known_bytes_ <= cap_bytes_ && std::chrono::steady_clock::now() - listed_at_ < kListAtLeastEvery) return;
  evict();
}

void FileCache::evict() {
  scans_++;
  struct Copy {
    fs::path path;
    fs::file_time_type used;
    int64_t size;
  };
  std::vector<Copy> copies;
  int64_t total = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(join_path(dir_, "files"), ec)) {
    if (!entry.is_regular_file(ec)) continue;
    Copy copy{entry.path(), entry.last_write_time(ec), static_cast<int64_t>(entry.file_size(ec))};
    total += copy.size;
    copies.push_back(std::move(copy));
  }
  const auto now = std::chrono::steady_clock::now();
  std::erase_if(in_use_, [&](const auto& entry) { return now - entry.second > kInUseFor; });
  if (total > cap_bytes_) {
    const int64_t down_to = cap_bytes_ - cap_bytes_ / 10;
    std::sort(copies.begin(), copies.end(), [](const Copy& a, const Copy& b) { return a.used < b.used; });
    for (const auto& copy : copies) {
      if (total <= down_to) break;
      if (in_use_.count(copy.path.string())) continue;
      fs::remove(copy.path, ec);
      if (!ec) total -= copy.size;
    }
  }
  known_bytes_ = total;
  listed_at_ = std::chrono::steady_clock::now();
  const auto orphan_before = fs::file_time_type::clock::now() - kStagedOrphanAfter;
  for (const auto& entry : fs::directory_iterator(join_path(dir_, "staging"), ec))
    if (entry.last_write_time(ec) < orphan_before) fs::remove(entry.path(), ec);
}

}  // namespace lakestream::delta
