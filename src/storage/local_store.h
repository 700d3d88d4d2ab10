// A folder on the local disk as an object store: put-if-absent is link(), as the Delta commit
// protocol on a POSIX file system has always been done here.
#pragma once

#include <optional>
#include <string>

#include "storage/object_store.h"

namespace lakestream::storage {

std::unique_ptr<ObjectStore> open_local_store(const std::string& folder);

// The file `key` under `folder` as a listing of that store gives it (key, size, modification
// time), or nullopt when it is not there: for a reader that knows the name it wants.
std::optional<ObjectInfo> local_object_info(const std::string& folder, const std::string& key);

}  // namespace lakestream::storage
