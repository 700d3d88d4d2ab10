#include "source/schema_registry_client.h"

#include <curl/curl.h>

#include <cctype>
#include <chrono>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "broker/broker_address.h"

namespace lakestream {
namespace {

size_t collect_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

std::string property(const std::vector<std::pair<std::string, std::string>>& properties, const std::string& name) {
  for (const auto& [key, value] : properties)
    if (key == name) return value;
  return "";
}

std::string percent_encoded(const std::string& text) {
  std::string out;
  char hex[4];
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

}  // namespace

SchemaRegistryClient::SchemaRegistryClient(const SchemaRegistrySettings& settings)
    : url_(resolve_schema_registry(settings.url)), properties_(settings.properties) {
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
}

std::optional<std::string> SchemaRegistryClient::get(const std::string& path) {
  std::string why;
  for (int attempt = 1; attempt <= 3; attempt++) {
    if (attempt > 1) std::this_thread::sleep_for(std::chrono::milliseconds(200 * attempt));
    CURL* curl = curl_easy_init();
    if (!curl) throw RegistryUnavailable("cannot start an HTTP client (libcurl) for the schema registry");
    std::string body;
    std::string url = url_ + path;
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    struct curl_slist* headers = curl_slist_append(nullptr, "Accept: application/vnd.schemaregistry.v1+json");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    std::string user_info = property(properties_, "basic.auth.user.info");
    if (!user_info.empty()) {
      curl_easy_setopt(curl, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
      curl_easy_setopt(curl, CURLOPT_USERPWD, user_info.c_str());
    }
    std::string ca = property(properties_, "ssl.ca.location"), cert = property(properties_, "ssl.certificate.location"),
                key = property(properties_, "ssl.key.location"), key_password = property(properties_, "ssl.key.password");
    if (!ca.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, ca.c_str());
    if (!cert.empty()) curl_easy_setopt(curl, CURLOPT_SSLCERT, cert.c_str());
    if (!key.empty()) curl_easy_setopt(curl, CURLOPT_SSLKEY, key.c_str());
    if (!key_password.empty()) curl_easy_setopt(curl, CURLOPT_KEYPASSWD, key_password.c_str());
    CURLcode rc = curl_easy_perform(curl);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) {
      why = curl_easy_strerror(rc);
      continue;
    }
    if (status == 200) return body;
    if (status == 404) return std::nullopt;
    if (status == 401 || status == 403) {
      why = "it refused the credentials (HTTP " + std::to_string(status) +
            "); check basic.auth.user.info in schema_registry_properties";
      break;
    }
    why = "HTTP " + std::to_string(status) + ": " + body.substr(0, 200);
    if (status < 500) break;
  }
  throw RegistryUnavailable("the schema registry at " + url_ + " did not answer GET " + path + ": " + why +
                            ". Nothing was read; run again when the registry is back (the next run goes on from here)");
}

std::optional<std::string> SchemaRegistryClient::schema_by_id(int id) {
  if (auto it = schemas_.find(id); it != schemas_.end()) return it->second;
  auto body = get("/schemas/ids/" + std::to_string(id));
  if (!body) return std::nullopt;
  auto doc = nlohmann::json::parse(*body, nullptr, false);
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string())
    throw RegistryUnavailable("the schema registry at " + url_ + " answered GET /schemas/ids/" + std::to_string(id) +
                              " with something that is not {\"schema\": \"...\"}: " + body->substr(0, 200));
  std::string type = doc.value("schemaType", "AVRO");
  if (type != "AVRO")
    throw Error("schema id " + std::to_string(id) + " in the registry at " + url_ + " is a " + type +
                " schema; an Avro source reads Avro schemas only");
  return schemas_[id] = doc["schema"].get<std::string>();
}

std::vector<SubjectVersion> SchemaRegistryClient::versions_of(int id) {
  auto body = get("/schemas/ids/" + std::to_string(id) + "/versions");
  std::vector<SubjectVersion> uses;
  if (!body) return uses;
  auto doc = nlohmann::json::parse(*body, nullptr, false);
  if (!doc.is_array()) return uses;
  for (const auto& use : doc)
    if (use.is_object() && use.contains("subject") && use.contains("version"))
      uses.push_back({use["subject"].get<std::string>(), use["version"].get<int>()});
  return uses;
}

std::optional<std::string> SchemaRegistryClient::schema_of_version(const std::string& subject, int version) {
  auto body = get("/subjects/" + percent_encoded(subject) + "/versions/" + std::to_string(version));
  if (!body) return std::nullopt;
  auto doc = nlohmann::json::parse(*body, nullptr, false);
  if (!doc.is_object() || !doc.contains("schema") || !doc["schema"].is_string()) return std::nullopt;
  return doc["schema"].get<std::string>();
}

}  // namespace lakestream
