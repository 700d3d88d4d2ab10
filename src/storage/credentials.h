// Credentials and endpoints of the object stores, the standard way: settings from the pipeline
// file first, then the variables and files the cloud CLIs and SDKs read. Secrets are kept here
// and in the signing code only; nothing that prints uses them.
#pragma once

#include <string>

#include "storage/object_store.h"

namespace lakestream::storage {

struct AwsSettings {
  std::string access_key_id, secret_access_key, session_token;
  std::string region;    // default us-east-1
  std::string endpoint;  // empty: https://s3.REGION.amazonaws.com
  bool path_style = false;
};

// settings > AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN / AWS_REGION
// (AWS_DEFAULT_REGION) / AWS_ENDPOINT_URL_S3 (AWS_ENDPOINT_URL) > the profile (AWS_PROFILE or
// "default") in AWS_SHARED_CREDENTIALS_FILE (~/.aws/credentials) and AWS_CONFIG_FILE (~/.aws/config).
// Throws Error saying what to set when no key is found. `service` names what the keys are for in
// that message; for another service than S3 the endpoint is the caller's to resolve.
AwsSettings resolve_aws(const StoreSettings& settings, const std::string& url, const char* service = "S3");

struct AzureSettings {
  std::string account;
  std::string account_key;  // base64, for Shared Key signing
  std::string sas_token;    // without the leading '?'
  std::string blob_endpoint;  // e.g. https://ACCOUNT.blob.core.windows.net or an emulator's http://127.0.0.1:10000/ACCOUNT
};

// settings > AZURE_STORAGE_CONNECTION_STRING > AZURE_STORAGE_ACCOUNT_NAME (AZURE_STORAGE_ACCOUNT) /
// AZURE_STORAGE_ACCOUNT_KEY (AZURE_STORAGE_KEY) / AZURE_STORAGE_SAS_TOKEN / AZURE_STORAGE_ENDPOINT.
// `account` is the one the URL names, if any. Throws Error saying what to set when neither a key
// nor a SAS token is found.
AzureSettings resolve_azure(const StoreSettings& settings, const std::string& account, const std::string& url);

// The number `key` is set to in `settings` (sizes, counts), else `fallback`.
int64_t int_setting(const StoreSettings& settings, const char* key, int64_t fallback);

// The value of `key` in `settings`, else of the first set environment variable of `vars`.
std::string setting_or_env(const StoreSettings& settings, const std::string& key, std::initializer_list<const char*> vars);

}  // namespace lakestream::storage
