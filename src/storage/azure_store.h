// Azure Blob Storage and ADLS Gen2 (through the Blob API, which Gen2 accounts serve too), with
// Shared Key or SAS authorisation. Shared Key signing is written here by hand (HMAC-SHA256 from
// OpenSSL): libcurl signs only AWS's scheme, and Azure's SDK for C++ is not packaged in Debian.
#pragma once

#include "storage/object_store.h"

namespace lakestream::storage {

std::unique_ptr<ObjectStore> open_azure_store(const StorageUrl& url, const StoreSettings& settings);

// The Shared Key signature of a request (the Authorization header's value after "ACCOUNT:"),
// from its string to sign; exposed for a test against Azure's documented example.
std::string azure_shared_key_signature(const std::string& account_key_base64, const std::string& string_to_sign);

}  // namespace lakestream::storage
