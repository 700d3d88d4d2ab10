// Reading [lake]. Store settings are read before the locations, so that a URL can be checked
// against the credentials it will use.
#include "pipeline/lake_section.h"

#include <algorithm>
#include <filesystem>

#include "pipeline/setting_values.h"
#include "storage/object_store.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {
namespace {

namespace fs = std::filesystem;

// The StoreSettings keys of storage/object_store.h.
const std::vector<std::string> kStorageKeys{"endpoint",      "region",        "path_style",  "access_key_id",
                                            "secret_access_key", "session_token", "profile", "account",
                                            "account_key",   "sas_token",     "connection_string", "part_size",
                                            "list_page_size", "max_attempts"};

std::string absolute_folder(const std::string& base, const std::string& dir) {
  fs::path path = fs::path(dir).is_absolute() ? fs::path(dir) : fs::path(base) / dir;
  std::string normal = path.lexically_normal().string();
  while (normal.size() > 1 && normal.back() == '/') normal.pop_back();
  return normal;
}

std::map<std::string, std::string> read_storage(const TomlSection& lake) {
  std::map<std::string, std::string> settings;
  auto storage = lake.table("storage");
  if (!storage) return settings;
  storage->allow_only(kStorageKeys);
  for (const auto& entry : storage->entries()) {
    // The stores take every setting as text; numbers and booleans are written bare in TOML.
    std::string value;
    if (entry.value->is_string()) value = entry.value->as_string()->get();
    else if (entry.value->is_integer()) value = std::to_string(entry.value->as_integer()->get());
    else if (entry.value->is_boolean()) value = entry.value->as_boolean()->get() ? "true" : "false";
    else storage->fail(entry.name, "must be a string, an integer or a boolean, not " + toml_type_words(*entry.value));
    settings[entry.name] = expanded(*storage, entry.name, value);
  }
  return settings;
}

}  // namespace

std::string read_location(const TomlSection& section, const std::string& name, const std::string& value,
                          const std::string& base_dir, const std::map<std::string, std::string>& storage) {
  std::string location = expanded(section, name, value);
  try {
    storage::StorageUrl url = storage::parse_storage_url(location);
    if (url.kind == storage::StoreKind::Local) return absolute_folder(base_dir, url.path);
    // Opening a store reads its credentials without a request: a missing key shows now, at its key.
    storage::open_store(location, storage);
  } catch (const Error& e) {
    section.fail(name, std::string(e.what()) + " (store settings go in [lake.storage])");
  }
  while (location.size() > 1 && location.back() == '/') location.pop_back();
  return location;
}

void read_lake(const TomlSection& root, Pipeline& pipeline) {
  pipeline.tables_dir = absolute_folder(pipeline.dir, "lake");
  pipeline.checkpoints_dir = absolute_folder(pipeline.dir, "checkpoints");
  pipeline.cache_dir = absolute_folder(pipeline.dir, "cache");
  auto lake = root.table("lake");
  if (!lake) return;
  lake->allow_only({"tables", "checkpoints", "table_locations", "storage", "cache", "cache_size", "compact",
                    "target_file_size", "compact_min_files", "column_mapping", "iceberg", "checkpoint_policy"});
  pipeline.storage = read_storage(*lake);
  if (lake->has("tables")) {
    std::string tables = lake->required_string(
        "tables", "set the folder of the Delta tables, e.g. \"lake\", or a store URL such as \"s3://bucket/lake\"");
    pipeline.tables_dir = read_location(*lake, "tables", tables, pipeline.dir, pipeline.storage);
  }
  if (lake->has("checkpoints")) {
    std::string checkpoints =
        lake->required_string("checkpoints", "set the folder of the stream checkpoints, e.g. \"checkpoints\"");
    std::string location = read_location(*lake, "checkpoints", checkpoints, pipeline.dir, pipeline.storage);
    if (storage::is_object_store_url(location)) pipeline.checkpoints_url = location;
    else pipeline.checkpoints_dir = location;
  }
  if (auto locations = lake->table("table_locations")) {
    for (const auto& entry : locations->entries()) {
      auto value = locations->required_string(entry.name, "set the folder or store URL of table " + entry.name);
      pipeline.table_locations[entry.name] = read_location(*locations, entry.name, value, pipeline.dir, pipeline.storage);
    }
  }
  if (lake->has("cache")) {
    std::string cache = lake->required_string("cache", "set the local folder of the cache, e.g. \"cache\"");
    cache = expanded(*lake, "cache", cache);
    if (storage::is_object_store_url(cache)) lake->fail("cache", "must be a local folder, not a store URL");
    pipeline.cache_dir = absolute_folder(pipeline.dir, cache);
  }
  if (lake->has("cache_size")) {
    std::string size = lake->required_string("cache_size", "set the most the cache keeps, e.g. \"10 GiB\"");
    auto bytes = parse_byte_size(size);
    if (!bytes) lake->fail("cache_size", "'" + size + "' is not a size; write e.g. \"10 GiB\", \"500 MB\"");
    pipeline.cache_size_bytes = *bytes;
  }
  if (auto compact = lake->boolean("compact")) pipeline.compact = *compact;
  if (lake->has("target_file_size")) {
    std::string size = lake->required_string("target_file_size", "set the size of the files compaction makes, e.g. \"128 MiB\"");
    auto bytes = parse_byte_size(size);
    if (!bytes || *bytes < 1024)
      lake->fail("target_file_size", "'" + size + "' is not a size of 1 KiB or more; write e.g. \"128 MiB\", \"1 GiB\"");
    pipeline.target_file_bytes = *bytes;
  }
  if (auto files = lake->positive_integer("compact_min_files")) {
    if (*files < 2) lake->fail("compact_min_files", "must be 2 or more: compaction merges that many small files into one");
    pipeline.compact_min_files = *files;
  }
  if (lake->has("column_mapping")) pipeline.column_mapping = read_column_mapping(*lake);
  if (auto iceberg = lake->boolean("iceberg")) pipeline.iceberg = *iceberg;
  if (lake->has("checkpoint_policy")) {
    pipeline.checkpoint_policy = lake->required_string(
        "checkpoint_policy", "write \"classic\" or \"v2\" (checkpoints with sidecars, for tables a service writes for weeks)");
    if (pipeline.checkpoint_policy != "classic" && pipeline.checkpoint_policy != "v2")
      lake->fail("checkpoint_policy", "'" + pipeline.checkpoint_policy + "' is not a checkpoint policy; write \"classic\" (the "
                                      "default, read by every Delta reader) or \"v2\" (checkpoints with sidecars: a week "
                                      "of a service's tombstones is not written again at every checkpoint; readers "
                                      "need Delta 3.0+, delta-rs or DuckDB's delta extension)");
  }
  if (pipeline.iceberg && pipeline.column_mapping == "name")
    lake->fail("iceberg", "is true, and Iceberg metadata needs column mapping in id mode while column_mapping is \"name\"; "
                          "write column_mapping = \"id\", or leave it out (id is then the default of the tables with Iceberg metadata)");
  // Checkpoints on a store are mirrored in a working copy in the cache folder.
  if (!pipeline.checkpoints_url.empty()) pipeline.checkpoints_dir = join_path(pipeline.cache_dir, "checkpoints");
}

void check_table_locations(const TomlSection& root, const Pipeline& pipeline) {
  auto lake = root.table("lake");
  if (!lake) return;
  auto locations = lake->table("table_locations");
  if (!locations) return;
  std::vector<std::string> tables = pipeline.table_names();
  for (const auto& entry : locations->entries()) {
    if (std::find(tables.begin(), tables.end(), entry.name) != tables.end()) continue;
    std::string list;
    for (const auto& table : tables) list += (list.empty() ? "" : ", ") + table;
    locations->fail(entry.name, "no stream of this file writes a table named " + entry.name + " (its tables: " + list + ")");
  }
}

}  // namespace lakestream
