#include "storage/object_store.h"

#include "storage/azure_store.h"
#include "storage/local_store.h"
#include "storage/s3_store.h"

namespace lakestream::storage {

std::unique_ptr<ObjectStore> open_store(const std::string& url, const StoreSettings& settings) {
  StorageUrl parsed = parse_storage_url(url);
  switch (parsed.kind) {
    case StoreKind::Local: return open_local_store(parsed.path);
    case StoreKind::S3: return open_s3_store(parsed, settings);
    case StoreKind::Azure: return open_azure_store(parsed, settings);
  }
  return nullptr;
}

}  // namespace lakestream::storage
