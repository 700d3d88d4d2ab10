#include "storage/azure_store.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <ctime>

#include "storage/base64.h"
#include "storage/credentials.h"
#include "storage/http_client.h"
#include "storage/xml_fields.h"
#include "util/error.h"
#include "util/percent_encoding.h"

namespace lakestream::storage {
namespace {

const char* kApiVersion = "2021-08-06";

std::string http_date() {
  char buf[64];
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

class AzureStore : public ObjectStore {
 public:
  AzureStore(const StorageUrl& url, const StoreSettings& settings)
      : url_(url), azure_(resolve_azure(settings, url.account, url.text)),
        block_size_(int_setting(settings, "part_size", 16LL << 20)),
        page_size_(int_setting(settings, "list_page_size", 5000)),
        max_attempts_(static_cast<int>(int_setting(settings, "max_attempts", 8))) {}

  std::optional<std::string> get(const std::string& key) override {
    HttpResponse r = send("GET", blob_path(key), "", "", "reading " + where(key));
    if (r.status == 404 && r.headers["x-ms-error-code"] == "BlobNotFound") return std::nullopt;
    check(r, "reading " + where(key));
    return std::move(r.body);
  }

  void put(const std::string& key, const std::string& data) override {
    if (static_cast<int64_t>(data.size()) > block_size_) return put_blocks(key, data);
    HttpResponse r = send("PUT", blob_path(key), "", data, "writing " + where(key), {{"x-ms-blob-type", "BlockBlob"}});
    check(r, "writing " + where(key));
  }

  bool put_if_absent(const std::string& key, const std::string& data) override {
    std::string what = "committing " + where(key);
    int attempts = 0;
    HttpResponse r = send("PUT", blob_path(key), "", data, what, {{"x-ms-blob-type", "BlockBlob"}, {"If-None-Match", "*"}},
                          &attempts);
    if (r.status >= 200 && r.status < 300) return true;
    // 409 BlobAlreadyExists (Azure's answer to If-None-Match: * on an existing blob), or 412.
    if (r.status == 409 || r.status == 412) {
      if (attempts > 1) {  // a retry after a lost answer may find its own blob
        auto there = get(key);
        if (there && *there == data) return true;
      }
      return false;
    }
    check(r, what);
    return false;
  }

  ListPage list_page(const std::string& prefix, const std::string& marker) override {
    ListPage out;
    std::string full_prefix = root() + prefix;
    {
      std::string query = "comp=list&maxresults=" + std::to_string(page_size_) + "&prefix=" + url_encode_query(full_prefix) +
                          "&restype=container";
      if (!marker.empty()) query += "&marker=" + url_encode_query(marker);
      HttpResponse r = send("GET", container_path(), query, "", "listing " + where(prefix));
      check(r, "listing " + where(prefix));
      // An empty listing means "no table here"; an answer that is not a listing must never pass for one.
      if (!is_xml_named(r.body, "EnumerationResults"))
        throw Error("listing " + where(prefix) + " failed: the store answered HTTP " + std::to_string(r.status) +
                    " with something that is not a listing (" + std::to_string(r.body.size()) + " bytes); try again");
      for (auto& blob : xml_records(r.body, "Blob", {"Name", "Content-Length", "Last-Modified"}))
        out.objects.push_back({blob[0].substr(root().size()), std::stoll(blob[1].empty() ? "0" : blob[1]),
                               parse_store_time_ms(blob[2])});
      out.next = xml_text(r.body, "NextMarker");
    }
    std::sort(out.objects.begin(), out.objects.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    return out;
  }

  void remove(const std::string& key) override {
    HttpResponse r = send("DELETE", blob_path(key), "", "", "deleting " + where(key));
    if (r.status != 404) check(r, "deleting " + where(key));
  }

  std::string describe() const override { return url_.text; }

 private:
  std::string root() const { return url_.prefix.empty() ? "" : url_.prefix + "/"; }
  std::string where(const std::string& key) const {
    return "az://" + url_.bucket + "/" + root() + key + " (account " + azure_.account + ")";
  }
  std::string container_path() const { return "/" + url_.bucket; }
  std::string blob_path(const std::string& key) const { return "/" + url_.bucket + "/" + url_encode_path(root() + key); }

  HttpResponse send(const std::string& method, const std::string& path, const std::string& query, const std::string& body,
                    const std::string& what, std::vector<std::pair<std::string, std::string>> headers = {},
                    int* attempts = nullptr) {
    return http_.send(
        [&] {
          HttpRequest request;
          request.method = method;
          request.body = body;
          request.headers = headers;
          request.headers.emplace_back("x-ms-date", http_date());
          request.headers.emplace_back("x-ms-version", kApiVersion);
          request.headers.emplace_back("Content-Type", "application/octet-stream");
          std::string full_query = query;
          if (azure_.account_key.empty()) {
            full_query += (full_query.empty() ? "" : "&") + azure_.sas_token;
          } else {
            request.headers.emplace_back("Authorization", "SharedKey " + azure_.account + ":" + sign(request, path, query));
          }
          request.url = azure_.blob_endpoint + path + (full_query.empty() ? "" : "?" + full_query);
          return request;
        },
        what, max_attempts_, attempts);
  }

  // Shared Key: https://learn.microsoft.com/rest/api/storageservices/authorize-with-shared-key
  std::string sign(const HttpRequest& request, const std::string& path, const std::string& query) const {
    auto header = [&](const char* name) {
      for (const auto& [n, v] : request.headers)
        if (n == name) return v;
      return std::string();
    };
    std::vector<std::pair<std::string, std::string>> ms;
    for (const auto& [n, v] : request.headers) {
      std::string lower = n;
      std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
      if (lower.rfind("x-ms-", 0) == 0) ms.emplace_back(lower, v);
    }
    std::sort(ms.begin(), ms.end());
    std::string length = request.body.empty() ? "" : std::to_string(request.body.size());
    std::string to_sign = request.method + "\n\n\n" + length + "\n\n" + header("Content-Type") + "\n\n\n\n" +
                          header("If-None-Match") + "\n\n\n";
    for (const auto& [n, v] : ms) to_sign += n + ":" + v + "\n";
    // The resource: /account + the URL's path (an emulator's path starts with the account too).
    std::string endpoint_path;
    size_t scheme = azure_.blob_endpoint.find("://");
    size_t slash = azure_.blob_endpoint.find('/', scheme == std::string::npos ? 0 : scheme + 3);
    if (slash != std::string::npos) endpoint_path = azure_.blob_endpoint.substr(slash);
    to_sign += "/" + azure_.account + endpoint_path + path;
    std::vector<std::pair<std::string, std::string>> params;
    size_t start = 0;
    while (start < query.size()) {
      size_t end = query.find('&', start);
      std::string kv = query.substr(start, end == std::string::npos ? std::string::npos : end - start);
      size_t eq = kv.find('=');
      params.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : percent_decoded(kv.substr(eq + 1)));
      if (end == std::string::npos) break;
      start = end + 1;
    }
    std::sort(params.begin(), params.end());
    for (const auto& [k, v] : params) to_sign += "\n" + k + ":" + v;
    return azure_shared_key_signature(azure_.account_key, to_sign);
  }

  void check(const HttpResponse& r, const std::string& what) {
    if (r.status >= 200 && r.status < 300) return;
    std::string code = r.headers.count("x-ms-error-code") ? r.headers.at("x-ms-error-code") : xml_text(r.body, "Code");
    std::string hint;
    if (r.status == 403) hint = ": check the account key or SAS token (AZURE_STORAGE_ACCOUNT_KEY / AZURE_STORAGE_SAS_TOKEN) and its permissions";
    if (code == "ContainerNotFound") hint = ": create the container first, or fix its name";
    throw Error(what + " failed: HTTP " + std::to_string(r.status) + (code.empty() ? "" : " " + code) + hint);
  }

  void put_blocks(const std::string& key, const std::string& data) {
    std::string what = "uploading " + where(key);
    std::string list = "<?xml version=\"1.0\" encoding=\"utf-8\"?><BlockList>";
    int index = 0;
    for (size_t offset = 0; offset < data.size(); offset += block_size_, ++index) {
      char name[24];
      std::snprintf(name, sizeof name, "block-%08d", index);  // ids of one blob must have one length
      std::string id = base64_encode(name);
      HttpResponse r = send("PUT", blob_path(key), "blockid=" + url_encode_query(id) + "&comp=block",
                            data.substr(offset, block_size_), what);
      check(r, what);
      list += "<Latest>" + id + "</Latest>";
    }
    list += "</BlockList>";
    HttpResponse r = send("PUT", blob_path(key), "comp=blocklist", list, what);
    check(r, what);
  }

  StorageUrl url_;
  AzureSettings azure_;
  int64_t block_size_, page_size_;
  int max_attempts_;
  HttpClient http_;
};

}  // namespace

std::string azure_shared_key_signature(const std::string& account_key_base64, const std::string& string_to_sign) {
  std::optional<std::string> key = base64_decode(account_key_base64);
  if (!key) throw Error("the Azure account key is not base64: copy it again from the portal (Access keys)");
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  HMAC(EVP_sha256(), key->data(), static_cast<int>(key->size()), reinterpret_cast<const unsigned char*>(string_to_sign.data()),
       string_to_sign.size(), mac, &mac_len);
  return base64_encode(std::string(reinterpret_cast<char*>(mac), mac_len));
}

std::unique_ptr<ObjectStore> open_azure_store(const StorageUrl& url, const StoreSettings& settings) {
  return std::make_unique<AzureStore>(url, settings);
}

}  // namespace lakestream::storage
