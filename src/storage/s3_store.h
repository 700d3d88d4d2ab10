// Amazon S3 and the stores that speak its API (MinIO, Cloudflare R2, GCS's XML API with HMAC
// keys), through libcurl, which signs each request with AWS Signature Version 4 itself.
#pragma once

#include "storage/object_store.h"

namespace lakestream::storage {

std::unique_ptr<ObjectStore> open_s3_store(const StorageUrl& url, const StoreSettings& settings);

// How a conditional PUT (If-None-Match: *) ended, from the store's answer: Created (2xx),
// Exists (412 Precondition Failed: another object is there), Retry (409: a conflicting
// conditional write is in flight; try again), or Failed (anything else).
enum class ConditionalPut { Created, Exists, Retry, Failed };
ConditionalPut interpret_conditional_put(long status);

}  // namespace lakestream::storage
