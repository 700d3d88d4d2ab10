#include "storage/http_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>

#include "storage/request_counts.h"
#include "util/error.h"

namespace lakestream::storage {
namespace {

size_t on_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

size_t on_header(char* data, size_t size, size_t count, void* out) {
  std::string line(data, size * count);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), ::tolower);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.pop_back();
    (*static_cast<std::map<std::string, std::string>*>(out))[name] = value;
  }
  return size * count;
}

std::string encode(const std::string& s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

std::string url_encode_path(const std::string& key) { return encode(key, true); }
std::string url_encode_query(const std::string& value) { return encode(value, false); }

bool is_retryable_status(long status) { return status == 408 || status == 429 || status >= 500; }

HttpClient::HttpClient() {
  static CurlGlobal global;
  curl_ = curl_easy_init();
  if (!curl_) throw Error("cannot start libcurl");
}

HttpClient::~HttpClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

HttpResponse HttpClient::send(const std::function<HttpRequest()>& build, const std::string& what, int max_attempts,
                              int* attempts) {
  CURL* curl = static_cast<CURL*>(curl_);
  std::mt19937 jitter(std::random_device{}());
  std::string last_failure;
  HttpResponse response;
  // A store request's whole wait, retries included, counts against the calling thread.
  struct StoreWait {
    std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
    bool store = false;
    ~StoreWait() {
      if (store)
        add_this_thread_store_wait(std::chrono::duration_cast<std::chrono::microseconds>(
                                       std::chrono::steady_clock::now() - began).count());
    }
  } store_wait;
  for (int attempt = 1; attempt <= max_attempts; ++attempt) {
    if (attempts) *attempts = attempt;
    if (attempt > 1) {
      int64_t wait_ms = std::min<int64_t>(5000, 100LL << std::min(attempt - 2, 10));
      wait_ms = wait_ms / 2 + std::uniform_int_distribution<int64_t>(0, wait_ms / 2)(jitter);
      std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    }
    HttpRequest request = build();
    store_wait.store = store_wait.store || request.store_request;
    response = HttpResponse{};
    curl_easy_reset(curl);
    curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
    if (request.method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    if (request.method == "PUT" || request.method == "POST") {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
    }
    struct curl_slist* headers = nullptr;
    bool has_content_type = false;
    for (const auto& [name, value] : request.headers) {
      headers = curl_slist_append(headers, (name + ": " + value).c_str());
      if (name == "Content-Type") has_content_type = true;
    }
    // libcurl would add its own Content-Type to a body and wait for 100-continue on large ones.
    if (!has_content_type) headers = curl_slist_append(headers, "Content-Type:");
    headers = curl_slist_append(headers, "Expect:");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (!request.aws_sigv4.empty()) {
      curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, request.aws_sigv4.c_str());
      curl_easy_setopt(curl, CURLOPT_USERPWD, request.aws_key_secret.c_str());
    }
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response.headers);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, request.timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    if (request.store_request)
      count_request(request.method, static_cast<int64_t>(request.body.size()), static_cast<int64_t>(response.body.size()));
    if (rc != CURLE_OK) {
      last_failure = curl_easy_strerror(rc);
      continue;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
    if (!is_retryable_status(response.status)) return response;
    last_failure = "HTTP " + std::to_string(response.status);
  }
  if (response.status != 0) return response;  // the caller turns the last 5xx into its own message
  throw Error(what + " failed after " + std::to_string(max_attempts) + " tries: " + last_failure +
              " (is the store reachable? check the endpoint and the network)");
}

}  // namespace lakestream::storage
