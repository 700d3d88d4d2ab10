// A handle on one Delta table: where it is and, for a table on an object store, the store
// settings and local cache it is reached with. Every reading and writing function of the table
// layer takes one; a Snapshot keeps the handle it was read through, so that a Commit built on it
// publishes to the same store with the same credentials, and its checkpoint goes there too.
//
// Two ways to make one:
// - From a path alone (implicitly, as the commands and most tests do): a table of the process's
//   lake, reached with the settings configure_table_stores() set once from the pipeline's
//   [lake.storage]. A local folder needs no settings.
// - With its own TableStoreOptions (the streams do, sinks/lake_table.h): that table uses them
//   whatever the process's lake is. Handles made for one table with the same options share one
//   open store and its connection. One process can read a table on one store and write another
//   on a second store with other credentials.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "storage/object_store.h"

namespace lakestream::delta {

class FileCache;
struct StorePool;

struct TableStoreOptions {
  storage::StoreSettings settings;  // [lake.storage]
  std::string cache_dir;            // local folder; empty: "lakestream-cache" in the current folder
  int64_t cache_bytes = 10LL << 30;
};

// The stores of a table with its own settings (table/table_files.cc), opened on first use. Shared
// by the copies of one handle.
struct OwnStore {
  TableStoreOptions options;
  std::mutex mutex;
  std::shared_ptr<StorePool> stores;
  std::shared_ptr<FileCache> cache;
};

class Table {
 public:
  Table() = default;  // no table: a Snapshot before it is read
  // A table of the process's lake at `path` (a folder, file:// or an object store URL).
  Table(std::string path);  // NOLINT(google-explicit-constructor): a path names a table of the lake
  Table(const char* path);  // NOLINT(google-explicit-constructor)
  // The table at `path`, reached with `options` rather than the process's lake settings.
  Table(std::string path, const TableStoreOptions& options);

  // The path as given (Snapshot keeps the normal one: see normal_table_path).
  const std::string& path() const { return path_; }
  // True when it names an object store (s3://, abfss://, az://, https://...).
  bool is_remote() const;
  // The same table, reached the same way, under its normal path.
  Table normal() const;
  // Its own store, or nullptr for a table of the process's lake.
  OwnStore* own_store() const { return own_.get(); }

 private:
  std::string path_;
  std::shared_ptr<OwnStore> own_;
};

}  // namespace lakestream::delta
