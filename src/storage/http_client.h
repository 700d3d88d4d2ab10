// HTTP for the object stores, through libcurl: one request at a time per client, retried with
// exponential backoff on what a cloud store says is passing (throttling, 5xx, a dropped
// connection). Requests are built afresh for each attempt, so a signature's date is never stale.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace lakestream::storage {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  // S3: libcurl signs the request itself (CURLOPT_AWS_SIGV4 with "aws:amz:REGION:s3" and
  // "KEY:SECRET" as user and password).
  std::string aws_sigv4;
  std::string aws_key_secret;
  // The most one attempt may take, connecting included (an object store's large uploads need
  // minutes; an API call that answers in milliseconds, seconds).
  long timeout_ms = 300000;
  // Counted in the object stores' request counts (storage/request_counts.h, a run's closing
  // line); a source's API calls are not store requests.
  bool store_request = true;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

// What a store says is worth another try: 408, 429 and 5xx.
bool is_retryable_status(long status);

class HttpClient {
 public:
  HttpClient();
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends the request `build` makes, up to `max_attempts` times while the answer is a dropped
  // connection or a retryable status, waiting 100 ms, 200 ms, 400 ms ... (capped at 5 s, with
  // jitter) between tries. Returns the last answer; throws Error naming `what` (never a URL
  // with a secret in it) when no attempt reached the server. `attempts`, when given, is set to
  // how many tries were made (a put-if-absent retried after a lost answer needs to know).
  HttpResponse send(const std::function<HttpRequest()>& build, const std::string& what, int max_attempts,
                    int* attempts = nullptr);

 private:
  void* curl_;  // CURL*, reused so that connections are kept alive
};

// Percent-encodes a key for a URL path: everything but unreserved characters and '/'.
std::string url_encode_path(const std::string& key);
// Percent-encodes a query parameter value (also '/').
std::string url_encode_query(const std::string& value);

}  // namespace lakestream::storage
