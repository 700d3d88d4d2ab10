// Every file access of the table layer goes through here, for a table handle (table/table.h): a
// local folder or an object store URL (storage/storage_url.h) reached with its own store settings
// or the process's lake's; keys are paths relative to the table
// ("_delta_log/00000000000000000007.json", "dt=2026-03-02/part-....parquet").
//
// Local tables keep their POSIX durability and no extra copy: commits are link() put-if-absent,
// data files are written in place and fsynced. On an object store a commit is a conditional PUT
// (put-if-absent, never an unconditional overwrite), data files and checkpoints are written by
// DuckDB into a staging folder of the local cache and uploaded whole, and reads of data files go
// through the cache of immutable files (table/file_cache.h). Log listings always ask the store.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "storage/object_store.h"
#include "table/table.h"

namespace lakestream::delta {

// The settings and cache of the process's lake: used for every table on an object store this
// process opens from a path alone (table/table.h); set once by a command from its pipeline,
// before any table is read. Stores opened before are dropped.
void configure_table_stores(const TableStoreOptions& options);

// True when `table_path` names an object store (s3://, abfss://, az://, https://...).
bool is_remote_table(const std::string& table_path);

// How a Snapshot keeps a table path: a URL without trailing '/', or an absolute folder
// (file:///x becomes /x).
std::string normal_table_path(const std::string& table_path);

// Every file whose key starts with `prefix` (in sub-folders too), sorted by key, with its size and
// modification time: a fresh listing of every page, never cached. Empty when there is no table.
std::vector<storage::ObjectInfo> list_table_files(const Table& table, const std::string& prefix);

// The same a page at a time, in key order, each handed to `page` until it returns false: a
// reader that wants only the start of a long listing stops there. The store is held for one
// page's request at a time, not the whole listing. A local table's listing is one page.
void list_table_files_from_start(const Table& table, const std::string& prefix,
                                 const std::function<bool(std::vector<storage::ObjectInfo>)>& page);

// The file's bytes; nullopt when it does not exist. Throws Error on any other failure.
std::optional<std::string> read_table_file(const Table& table, const std::string& key);

// Creates the file only if none has `key`: false when another writer's file was there first.
// The Delta commit.
bool put_table_file_if_absent(const Table& table, const std::string& key, const std::string& data);

// Writes the file whole, replacing any (readers see the old bytes or the new, never a part).
void put_table_file(const Table& table, const std::string& key, const std::string& data);

// Deletes the file; no error when it is missing.
void remove_table_file(const Table& table, const std::string& key);

// A local path where DuckDB writes the file `key` before it is published: for a local table the
// file's own place (its folder made), for a remote one a fresh name in the cache's staging folder.
std::string staging_path(const Table& table, const std::string& key);

// Makes the staged file the table's file `key`: for a local table (written in place) fsyncs it
// and its folder; for a remote one uploads it (multipart when large) and keeps it as the cached
// copy. After this returns, a commit may name the file.
void publish_staged_file(const Table& table, const std::string& key, const std::string& staged_path);

// Drops a staged file that will not be published (and, for a local table, the file itself).
void discard_staged_file(const Table& table, const std::string& staged_path);

// A local path holding the bytes of the table's immutable file `key` of `size` bytes, for DuckDB
// to read: the file itself for a local table, a cached copy (downloaded when missing) for a
// remote one. Throws Error naming the file when the store has no such file.
std::string readable_path(const Table& table, const std::string& key, int64_t size);

// The keys among `keys` that the table does not hold (one listing for a remote table, of the folder
// the keys share; none for no keys).
std::vector<std::string> missing_table_files(const Table& table, const std::vector<std::string>& keys);

}  // namespace lakestream::delta
