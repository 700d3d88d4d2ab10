// Where a table or a checkpoint lives: a local folder, an S3 bucket or an Azure container, named
// by the URL forms users already write for Spark, delta-rs and the cloud CLIs.
#pragma once

#include <string>

namespace lakestream::storage {

enum class StoreKind { Local, S3, Azure };

struct StorageUrl {
  StoreKind kind = StoreKind::Local;
  std::string bucket;   // S3 bucket, or Azure container
  std::string account;  // Azure storage account (empty for S3 and local)
  std::string prefix;   // the folder inside the bucket/container, no leading or trailing '/'
  std::string path;     // Local: the folder on disk
  std::string text;     // as the user wrote it (no secrets can be in it: URLs carry none)
};

// Parses
//   s3://bucket/prefix, s3a://bucket/prefix
//   abfss://container@account.dfs.core.windows.net/prefix (and abfs://, wasbs://...blob...)
//   az://container/prefix, azure://container/prefix (the account comes from the settings)
//   https://account.blob.core.windows.net/container/prefix
//   file:///folder and plain paths.
// Throws Error naming the URL and the forms accepted when it is none of these.
StorageUrl parse_storage_url(const std::string& url);

// True for the URL forms of object stores (not local paths).
bool is_object_store_url(const std::string& url);

}  // namespace lakestream::storage
