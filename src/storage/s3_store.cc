#include "storage/s3_store.h"

#include <algorithm>

#include "storage/credentials.h"
#include "storage/http_client.h"
#include "storage/sha256.h"
#include "storage/xml_fields.h"
#include "util/error.h"

namespace lakestream::storage {
namespace {

class S3Store : public ObjectStore {
 public:
  S3Store(const StorageUrl& url, const StoreSettings& settings)
      : url_(url), aws_(resolve_aws(settings, url.text)),
        part_size_(int_setting(settings, "part_size", 16LL << 20)),
        page_size_(int_setting(settings, "list_page_size", 1000)),
        max_attempts_(static_cast<int>(int_setting(settings, "max_attempts", 8))) {
    if (part_size_ < (5LL << 20) && !settings.count("part_size"))
      part_size_ = 5LL << 20;  // S3's smallest part (but the last)
  }

  std::optional<std::string> get(const std::string& key) override {
    HttpResponse r = send("GET", key, "", {}, "reading " + where(key));
    if (r.status == 404) return std::nullopt;
    check(r, "reading " + where(key));
    return std::move(r.body);
  }

  void put(const std::string& key, const std::string& data) override {
    if (static_cast<int64_t>(data.size()) > part_size_) return put_multipart(key, data);
    HttpResponse r = send("PUT", key, "", data, "writing " + where(key), {{"Content-Type", "application/octet-stream"}});
    check(r, "writing " + where(key));
  }

  bool put_if_absent(const std::string& key, const std::string& data) override {
    std::string what = "committing " + where(key);
    for (int round = 0; round < max_attempts_; ++round) {
      int attempts = 0;
      HttpResponse r = send("PUT", key, "", data, what,
                            {{"Content-Type", "application/octet-stream"}, {"If-None-Match", "*"}}, &attempts);
      switch (interpret_conditional_put(r.status)) {
        case ConditionalPut::Created: return true;
        case ConditionalPut::Retry: continue;
        case ConditionalPut::Exists:
          // A retry after an answer that was lost in transit finds its own object: that is a win.
          if (attempts > 1) {
            auto there = get(key);
            if (there && *there == data) return true;
          }
          return false;
        case ConditionalPut::Failed: check(r, what);
      }
    }
    throw Error(what + ": the store kept answering 409 (a conflicting write in flight); try again");
  }

  ListPage list_page(const std::string& prefix, const std::string& token) override {
    ListPage out;
    std::string full_prefix = root() + prefix;
    {
      std::string query = "list-type=2&max-keys=" + std::to_string(page_size_) + "&prefix=" + url_encode_query(full_prefix);
      if (!token.empty()) query += "&continuation-token=" + url_encode_query(token);
      HttpResponse r = send("GET", "", query, "", "listing " + where(prefix), {}, nullptr, /*bucket_level=*/true);
      check(r, "listing " + where(prefix));
      // An empty listing means "no table here"; an answer that is not a listing must never pass for one.
      if (!is_xml_named(r.body, "ListBucketResult"))
        throw Error("listing " + where(prefix) + " failed: the store answered HTTP " + std::to_string(r.status) +
                    " with something that is not a listing (" + std::to_string(r.body.size()) + " bytes); try again");
      for (auto& object : xml_records(r.body, "Contents", {"Key", "Size", "LastModified"}))
        out.objects.push_back({object[0].substr(root().size()), std::stoll(object[1].empty() ? "0" : object[1]),
                               parse_store_time_ms(object[2])});
      out.next = xml_text(r.body, "IsTruncated") == "true" ? xml_text(r.body, "NextContinuationToken") : "";
    }
    std::sort(out.objects.begin(), out.objects.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.key < b.key; });
    return out;
  }

  void remove(const std::string& key) override {
    HttpResponse r = send("DELETE", key, "", "", "deleting " + where(key));
    if (r.status != 404) check(r, "deleting " + where(key));
  }

  std::string describe() const override { return url_.text; }

 private:
  std::string root() const { return url_.prefix.empty() ? "" : url_.prefix + "/"; }
  std::string where(const std::string& key) const { return "s3://" + url_.bucket + "/" + root() + key; }

  std::string object_url(const std::string& key, const std::string& query, bool bucket_level) const {
    std::string path = bucket_level ? "" : url_encode_path(root() + key);
    std::string base;
    if (aws_.path_style) {
      std::string endpoint = aws_.endpoint.empty() ? "https://s3." + aws_.region + ".amazonaws.com" : aws_.endpoint;
      base = endpoint + "/" + url_.bucket + "/" + path;
    } else if (aws_.endpoint.empty()) {
      base = "https://" + url_.bucket + ".s3." + aws_.region + ".amazonaws.com/" + path;
    } else {
      size_t scheme_end = aws_.endpoint.find("://");
      base = aws_.endpoint.substr(0, scheme_end + 3) + url_.bucket + "." + aws_.endpoint.substr(scheme_end + 3) + "/" + path;
    }
    return query.empty() ? base : base + "?" + query;
  }

  HttpResponse send(const std::string& method, const std::string& key, const std::string& query, const std::string& body,
                    const std::string& what, std::vector<std::pair<std::string, std::string>> headers = {},
                    int* attempts = nullptr, bool bucket_level = false) {
    // S3 wants the payload's hash signed; libcurl 7.88 signs the headers it is given.
    headers.emplace_back("x-amz-content-sha256", sha256_hex(body));
    if (!aws_.session_token.empty()) headers.emplace_back("x-amz-security-token", aws_.session_token);
    return http_.send(
        [&] {
          HttpRequest request;
          request.method = method;
          request.url = object_url(key, query, bucket_level);
          request.headers = headers;
          request.body = body;
          request.aws_sigv4 = "aws:amz:" + aws_.region + ":s3";
          request.aws_key_secret = aws_.access_key_id + ":" + aws_.secret_access_key;
          return request;
        },
        what, max_attempts_, attempts);
  }

  void check(const HttpResponse& r, const std::string& what) const {
    if (r.status >= 200 && r.status < 300) return;
    std::string code = xml_text(r.body, "Code");
    std::string message = xml_text(r.body, "Message");
    std::string hint;
    if (r.status == 403) hint = ": check the credentials (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) and the bucket's policy";
    if (code == "NoSuchBucket") hint = ": create the bucket first, or fix its name";
    if (code == "PermanentRedirect" || code == "AuthorizationHeaderMalformed") hint = ": set the bucket's region (AWS_REGION)";
    throw Error(what + " failed: HTTP " + std::to_string(r.status) + (code.empty() ? "" : " " + code) +
                (message.empty() ? "" : " (" + message + ")") + hint);
  }

  void put_multipart(const std::string& key, const std::string& data) {
    std::string what = "uploading " + where(key);
    HttpResponse start = send("POST", key, "uploads", "", what, {{"Content-Type", "application/octet-stream"}});
    check(start, what);
    std::string upload_id = xml_text(start.body, "UploadId");
    if (upload_id.empty()) throw Error(what + " failed: the store gave no UploadId");
    std::string id = url_encode_query(upload_id);
    try {
      std::string done = "<CompleteMultipartUpload>";
      int part = 0;
      for (size_t offset = 0; offset < data.size(); offset += part_size_) {
        ++part;
        std::string chunk = data.substr(offset, part_size_);
        HttpResponse r = send("PUT", key, "partNumber=" + std::to_string(part) + "&uploadId=" + id, chunk, what);
        check(r, what);
        done += "<Part><PartNumber>" + std::to_string(part) + "</PartNumber><ETag>" + r.headers["etag"] + "</ETag></Part>";
      }
      done += "</CompleteMultipartUpload>";
      HttpResponse r = send("POST", key, "uploadId=" + id, done, what, {{"Content-Type", "application/xml"}});
      check(r, what);
      // S3 may answer 200 with an error in the body once the parts are being joined.
      if (!xml_text(r.body, "Code").empty()) throw Error(what + " failed: " + xml_text(r.body, "Message"));
    } catch (...) {
      send("DELETE", key, "uploadId=" + id, "", what);  // abort: no orphaned parts billed forever
      throw;
    }
  }

  StorageUrl url_;
  AwsSettings aws_;
  int64_t part_size_, page_size_;
  int max_attempts_;
  HttpClient http_;
};

}  // namespace

ConditionalPut interpret_conditional_put(long status) {
  if (status >= 200 && status < 300) return ConditionalPut::Created;
  if (status == 412) return ConditionalPut::Exists;
  if (status == 409) return ConditionalPut::Retry;
  return ConditionalPut::Failed;
}

std::unique_ptr<ObjectStore> open_s3_store(const StorageUrl& url, const StoreSettings& settings) {
  return std::make_unique<S3Store>(url, settings);
}

}  // namespace lakestream::storage
