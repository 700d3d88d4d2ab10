// The one interface between lakestream and where its files live: a flat namespace of keys
// (paths relative to the store's root), written whole, with the one condition the Delta commit
// protocol needs: put-if-absent. Local folders, S3 and Azure Blob / ADLS Gen2 implement it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/storage_url.h"

namespace lakestream::storage {

struct ObjectInfo {
  std::string key;  // relative to the store's root
  int64_t size = 0;
  int64_t modified_ms = 0;  // last modification, ms since the epoch (0 when the store did not say)
};

// Settings of a store, from the pipeline file or the command line; what is not set here comes
// from the standard environment variables (AWS_*, AZURE_STORAGE_*) and the AWS profile file.
// Keys: endpoint, region, path_style ("true"/"false"), access_key_id, secret_access_key,
// session_token, profile; account, account_key, sas_token, connection_string; and for tests and
// tuning: part_size (bytes of one multipart part or block), list_page_size, max_attempts.
using StoreSettings = std::map<std::string, std::string>;

// One page of a listing, in key order, and the token that asks for the next page (empty after
// the last).
struct ListPage {
  std::vector<ObjectInfo> objects;
  std::string next;
};

class ObjectStore {
 public:
  virtual ~ObjectStore() = default;

  // The whole object; nullopt when there is none. Throws Error for any other failure.
  virtual std::optional<std::string> get(const std::string& key) = 0;

  // Writes the whole object, replacing any. For data files, which have unique names and are
  // written once; large objects go up in parts (multipart upload, Azure blocks).
  virtual void put(const std::string& key, const std::string& data) = 0;

  // Writes the object only if no object has `key`: true when this call created it, false when
  // another writer's object was there first (left untouched). The Delta commit.
  virtual bool put_if_absent(const std::string& key, const std::string& data) = 0;

  // One page of the objects whose key starts with `prefix`: the first when `token` is empty,
  // else the one that token asks for. Stores list in key order, so a reader that wants only the
  // start of a long listing (the oldest commits of a log) stops paging there. The local store
  // gives every object in one page.
  virtual ListPage list_page(const std::string& prefix, const std::string& token) = 0;

  // Every object whose key starts with `prefix`, sorted by key, all pages of the listing.
  std::vector<ObjectInfo> list(const std::string& prefix);

  // Deletes the object; no error when it is missing.
  virtual void remove(const std::string& key) = 0;

  // The store's URL for messages (never a secret).
  virtual std::string describe() const = 0;
};

// Opens the store a URL names (see storage_url.h). Throws Error when the URL is malformed or
// credentials are missing, saying which variable or setting to set.
std::unique_ptr<ObjectStore> open_store(const std::string& url, const StoreSettings& settings = {});

}  // namespace lakestream::storage
