// The local cache of files of tables on object stores: DuckDB has no remote file system here, so
// it reads a remote table's data files (and log checkpoints) from local copies. Those files are
// immutable (unique names, written once), so a copy is named by the table's URL, the file's key
// and its size, and never goes stale. Each copy is written under a temp name and renamed, so a
// crash never leaves a part under a cached name (and a copy of the wrong size is fetched again).
// The cache holds at most its cap: the least recently used copies go first, except those this
// process handed out lately (a query built on them may still be running).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace lakestream::delta {

class FileCache {
 public:
  FileCache(std::string dir, int64_t cap_bytes);

  // The local path of the copy of `identity` (table URL + key) of `size` bytes, made with
  // `download` when there is none. `suffix` ends the local name (".parquet"). Throws what
  // `download` throws, and Error when it returns another size.
  std::string copy_of(const std::string& identity, const std::string& suffix, int64_t size,
                      const std::function<std::string()>& download);

  // Takes the file at `path` (written by this process, e.g. a data file just uploaded) as the
  // copy of `identity`.
  void adopt(const std::string& identity, const std::string& suffix, int64_t size, const std::string& path);

  // A fresh path in the staging folder, for a file to be uploaded; `name` ends it.
  std::string staging_path(const std::string& name);

  // How many times this process listed the cache's files (each a stat per file).
  int64_t scans() const { return scans_; }

 private:
  std::string path_for(const std::string& identity, const std::string& suffix, int64_t size) const;
  void use(const std::string& path);
  // After a copy of `size` bytes was added: evicts when the cache may be over its cap.
  void added(int64_t size);
  // Lists every copy, and when they pass the cap removes the least recently used down to 90% of
  // it (so that the next few adds do not list again).
  void evict();
  // The first use in a process sweeps what earlier processes left over the cap, even when every
  // file this process reads is already there.
  void evict_once();

  std::string dir_;
  int64_t cap_bytes_;
  std::mutex mutex_;
  bool swept_ = false;
  // The bytes of the last listing plus what this process added since, and when that listing was.
  int64_t known_bytes_ = 0;
  std::chrono::steady_clock::time_point listed_at_;
  int64_t scans_ = 0;
  // Copies handed out by this process, and when: kept for a while even over the cap.
  std::map<std::string, std::chrono::steady_clock::time_point> in_use_;
};

}  // namespace lakestream::delta
