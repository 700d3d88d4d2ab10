// File-system helpers with the durability the commit protocols rely on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lakestream {

// Reads a whole file; throws Error naming the path when it cannot.
std::string read_file(const std::string& path);

// Writes `data` to `path` atomically and durably: a temp file beside it, fsync, rename, fsync of
// the folder. Readers see the old content or the new, never a part.
void write_file_atomic(const std::string& path, const std::string& data, int mode = 0644);

// Writes `data` to `path` only if `path` does not exist yet: temp file, fsync, link(), fsync of
// the folder. Returns false, leaving `path` untouched, when another writer created it first.
bool write_file_if_absent(const std::string& path, const std::string& data);

// Creates `path` and its parents (mode applies to the folders it creates).
void make_dirs(const std::string& path, int mode = 0755);

// fsyncs a folder, so that names created in it survive a crash.
void sync_dir(const std::string& path);

bool path_exists(const std::string& path);

// The names (not paths) in a folder, sorted; empty when the folder does not exist.
std::vector<std::string> list_dir(const std::string& path);

// The size of a file in bytes; 0 when it does not exist.
int64_t file_size_or_zero(const std::string& path);

// Appends `data` to `path` in one write (O_APPEND), creating it with `mode`: for logs, where a
// lost last line after a crash is acceptable but a line must never interleave with another.
void append_to_file(const std::string& path, const std::string& data, int mode = 0644);

// Removes a file or a folder tree; no error when it is missing.
void remove_all(const std::string& path);

// A random version-4 UUID, for data file names.
std::string new_uuid();

// Joins two path parts with one '/'.
std::string join_path(const std::string& a, const std::string& b);

// Empties (or makes) folder `dir` for a command that owns it, such as `demo` or `bench`: a folder
// it made before carries `.lakestream-<command>` and is wiped; any other existing folder is
// refused with an Error, so a mistyped --dir never deletes someone's files.
void prepare_owned_folder(const std::string& dir, const std::string& command);

// Makes a path absolute against the current folder (no symlink resolution).
std::string absolute_path(const std::string& path);

}  // namespace lakestream
