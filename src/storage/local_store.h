// A folder on the local disk as an object store: put-if-absent is link(), as the Delta commit
// protocol on a POSIX file system has always been done here.
#pragma once

#include "storage/object_store.h"

namespace lakestream::storage {

std::unique_ptr<ObjectStore> open_local_store(const std::string& folder);

}  // namespace lakestream::storage
