#include "storage/object_store.h"

#include "storage/azure_store.h"
#include "storage/local_store.h"
#include "storage/s3_store.h"

#include <algorithm>

namespace lakestream::storage {

std::vector<ObjectInfo> ObjectStore::list(const std::string& prefix) {
  std::vector<ObjectInfo> out;
  std::string token;
  do {
    ListPage page = list_page(prefix, token);
    for (auto& object : page.objects) out.push_back(std::move(object));
    token = std::move(page.next);
  } while (!token.empty());
  std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
  return out;
}

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
