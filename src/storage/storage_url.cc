#include "storage/storage_url.h"

#include "util/error.h"

namespace lakestream::storage {
namespace {

const char* kForms =
    "s3://bucket/prefix, abfss://container@account.dfs.core.windows.net/prefix, az://container/prefix, "
    "https://account.blob.core.windows.net/container/prefix, file:///folder or a plain path";

std::string trim_slashes(std::string s) {
  while (!s.empty() && s.front() == '/') s.erase(s.begin());
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

[[noreturn]] void refuse(const std::string& url, const std::string& why) {
  throw Error("storage URL '" + url + "' " + why + "; write one of " + kForms);
}

// "bucket/some/prefix" -> bucket, "some/prefix".
void split_first(const std::string& url, const std::string& rest, std::string& first, std::string& prefix) {
  size_t slash = rest.find('/');
  first = rest.substr(0, slash);
  prefix = slash == std::string::npos ? "" : trim_slashes(rest.substr(slash + 1));
  if (first.empty()) refuse(url, "names no bucket or container");
}

}  // namespace

bool is_object_store_url(const std::string& url) {
  size_t colon = url.find("://");
  if (colon == std::string::npos) return false;
  std::string scheme = url.substr(0, colon);
  return scheme != "file";
}

StorageUrl parse_storage_url(const std::string& url) {
  StorageUrl out;
  out.text = url;
  size_t colon = url.find("://");
  if (colon == std::string::npos) {
    if (url.empty()) refuse(url, "is empty");
    out.path = url;
    return out;
  }
  std::string scheme = url.substr(0, colon);
  std::string rest = url.substr(colon + 3);
  if (scheme == "file") {
    out.path = rest.empty() ? "/" : rest;
    if (out.path.front() != '/') refuse(url, "is not an absolute file URL (file:///folder)");
    return out;
  }
  if (scheme == "s3" || scheme == "s3a") {
    out.kind = StoreKind::S3;
    split_first(url, rest, out.bucket, out.prefix);
    return out;
  }
  if (scheme == "az" || scheme == "azure") {
    out.kind = StoreKind::Azure;
    split_first(url, rest, out.bucket, out.prefix);
    return out;
  }
  if (scheme == "abfss" || scheme == "abfs" || scheme == "wasbs" || scheme == "wasb") {
    // container@account.dfs.core.windows.net/prefix
    out.kind = StoreKind::Azure;
    std::string host;
    split_first(url, rest, host, out.prefix);
    size_t at = host.find('@');
    if (at == std::string::npos || at == 0) refuse(url, "names no container (container@account.dfs.core.windows.net)");
    out.bucket = host.substr(0, at);
    std::string account_host = host.substr(at + 1);
    out.account = account_host.substr(0, account_host.find('.'));
    if (out.account.empty()) refuse(url, "names no storage account");
    return out;
  }
  if (scheme == "https" || scheme == "http") {
    // account.blob.core.windows.net/container/prefix
    std::string host, path;
    split_first(url, rest, host, path);
    if (host.find(".blob.core.windows.net") == std::string::npos &&
        host.find(".dfs.core.windows.net") == std::string::npos)
      refuse(url, "is an https URL but not an Azure storage account's (account.blob.core.windows.net)");
    out.kind = StoreKind::Azure;
    out.account = host.substr(0, host.find('.'));
    split_first(url, path, out.bucket, out.prefix);
    return out;
  }
  refuse(url, "has a scheme lakestream does not know ('" + scheme + "://')");
}

}  // namespace lakestream::storage
