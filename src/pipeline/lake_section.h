// The [lake] section: where tables (and checkpoints) live, the object stores' settings
// ([lake.storage]) and the local cache of remote tables' files. A location is a local folder or an
// object store URL; each is checked when the file is read (the URL's form, and that the store's
// credentials are there), so a mistake names the file, the line and the key before anything runs.
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "pipeline/toml_section.h"

namespace lakestream {

// Reads [lake] into pipeline.tables_dir, table_locations, checkpoints_dir, storage, cache_dir and
// cache_size_bytes.
void read_lake(const TomlSection& root, Pipeline& pipeline);

// Refuses a [lake.table_locations] entry that names no table of the pipeline (run once the
// streams are read).
void check_table_locations(const TomlSection& root, const Pipeline& pipeline);

// The location `value` of key `name` in `section` as the Pipeline keeps it: an object store URL
// as written (trailing '/' dropped), file:///folder as /folder, a plain path made absolute against
// `base_dir`. ${VAR} is expanded. A malformed URL, or a store whose credentials are missing, fails
// at the key, saying what to set. `storage` is [lake.storage] (read first).
std::string read_location(const TomlSection& section, const std::string& name, const std::string& value,
                          const std::string& base_dir, const std::map<std::string, std::string>& storage);

}  // namespace lakestream
