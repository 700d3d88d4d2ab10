// The embedded schema registry's routes. Schemas are validated by avro-c and kept in their
// canonical JSON text, so that the same schema written with other spacing or key order is the
// same schema (same id), as Confluent's registry does.
#include "broker/schema_registry_server.h"

#include <avro.h>

#include <cctype>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "broker/avro_compatibility.h"
#include "util/percent_encoding.h"

namespace lakestream {
namespace {

using json = nlohmann::json;

constexpr const char* kContentType = "application/vnd.schemaregistry.v1+json";

HttpResponse reply(const json& body, int status = 200) { return {status, kContentType, body.dump()}; }

HttpResponse error_reply(int status, int error_code, const std::string& message) {
  return reply({{"error_code", error_code}, {"message", message}}, status);
}

// The path's segments, percent-decoded, without the query string.
std::vector<std::string> segments_of(const std::string& target) {
  std::string path = target.substr(0, target.find('?'));
  std::vector<std::string> segments;
  size_t at = 0;
  while (at < path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    if (slash > at) segments.push_back(percent_decoded(path.substr(at, slash - at)));
    at = slash + 1;
  }
  return segments;
}

// The schema of a request body {"schema": "...", "schemaType": "AVRO"} in canonical form, or a
// reason it is not an Avro schema.
bool canonical_schema(const std::string& body, std::string& canonical, std::string& why) {
  json request = json::parse(body, nullptr, false);
  if (!request.is_object() || !request.contains("schema") || !request["schema"].is_string()) {
    why = "the body must be {\"schema\": \"<the schema as a JSON string>\"}";
    return false;
  }
  std::string type = request.value("schemaType", "AVRO");
  if (type != "AVRO") {
    why = "schemaType " + type + " is not served by the embedded registry; only AVRO";
    return false;
  }
  std::string text = request["schema"].get<std::string>();
  avro_schema_t schema = nullptr;
  if (avro_schema_from_json_length(text.c_str(), text.size(), &schema) != 0) {
    why = std::string("not a valid Avro schema: ") + avro_strerror();
    return false;
  }
  avro_schema_decref(schema);
  canonical = json::parse(text).dump();
  return true;
}

}  // namespace

SchemaRegistryServer::SchemaRegistryServer(int port)
    : http_(std::make_unique<HttpServer>("127.0.0.1", port,
                                         HttpServer::RequestHandler([this](const HttpRequest& r) { return handle(r); }))) {}

SchemaRegistryServer::~SchemaRegistryServer() { http_.reset(); }

std::string SchemaRegistryServer::url() const { return "http://127.0.0.1:" + std::to_string(http_->port()); }

HttpResponse SchemaRegistryServer::handle(const HttpRequest& request) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto s = segments_of(request.path);
  const std::string& method = request.method;
  if (method == "GET" && s.size() == 1 && s[0] == "subjects") {
    json names = json::array();
    for (const auto& [subject, versions] : subjects_) names.push_back(subject);
    return reply(names);
  }
  if (s.size() >= 2 && s[0] == "subjects") {
    const std::string& subject = s[1];
    if (method == "POST" && s.size() == 3 && s[2] == "versions") return register_schema(subject, request.body);
    if (method == "POST" && s.size() == 2) return lookup_schema(subject, request.body);
    if (method == "GET" && s.size() == 3 && s[2] == "versions") {
      auto it = subjects_.find(subject);
      if (it == subjects_.end()) return error_reply(404, 40401, "Subject '" + subject + "' not found.");
      json versions = json::array();
      for (size_t v = 1; v <= it->second.size(); v++) versions.push_back(v);
      return reply(versions);
    }
    if (method == "GET" && s.size() == 4 && s[2] == "versions") return subject_version(subject, s[3]);
  }
  if (method == "GET" && s.size() >= 3 && s[0] == "schemas" && s[1] == "ids") {
    int id = std::atoi(s[2].c_str());
    if (id < 1 || id > static_cast<int>(schemas_.size()))
      return error_reply(404, 40403, "Schema " + s[2] + " not found");
    if (s.size() == 3) return reply({{"schema", schemas_[id - 1]}});
    if (s.size() == 4 && s[3] == "versions") {
      json uses = json::array();
      for (const auto& [subject, ids] : subjects_)
        for (size_t v = 0; v < ids.size(); v++)
          if (ids[v] == id) uses.push_back({{"subject", subject}, {"version", v + 1}});
      return reply(uses);
    }
  }
  if (!s.empty() && s[0] == "config" && s.size() <= 2) return config(method, s.size() == 2 ? s[1] : "", request.body);
  if (method == "POST" && s.size() == 5 && s[0] == "compatibility" && s[1] == "subjects" && s[3] == "versions")
    return check_compatibility(s[2], s[4], request.body);
  return error_reply(404, 404, "HTTP 404 Not Found: " + method + " " + request.path + " is not served by the embedded registry");
}

HttpResponse SchemaRegistryServer::register_schema(const std::string& subject, const std::string& body) {
  std::string canonical, why;
  if (!canonical_schema(body, canonical, why)) return error_reply(422, 42201, "Invalid schema: " + why);
  auto& versions = subjects_[subject];
  for (int id : versions)
    if (schemas_[id - 1] == canonical) return reply({{"id", id}});
  auto level = levels_.find(subject);
  bool checked = level == levels_.end() || level->second != "NONE";
  if (!versions.empty() && checked) {
    auto problems = avro_read_problems(json::parse(canonical), json::parse(schemas_[versions.back() - 1]));
    if (!problems.empty()) {
      json messages = problems;
      return error_reply(409, 409, "Schema being registered is incompatible with an earlier schema for subject \"" +
                                       subject + "\", details: " + messages.dump());
    }
  }
  int id = 0;
  for (size_t i = 0; i < schemas_.size() && !id; i++)
    if (schemas_[i] == canonical) id = static_cast<int>(i) + 1;
  if (!id) {
    schemas_.push_back(canonical);
    id = static_cast<int>(schemas_.size());
  }
  versions.push_back(id);
  return reply({{"id", id}});
}

HttpResponse SchemaRegistryServer::config(const std::string& method, const std::string& subject,
                                          const std::string& body) {
  if (method == "GET") {
    if (subject.empty()) return reply({{"compatibilityLevel", "BACKWARD"}});
    auto it = levels_.find(subject);
    if (it == levels_.end())
      return error_reply(404, 40408, "Subject '" + subject + "' does not have subject-level compatibility configured");
    return reply({{"compatibilityLevel", it->second}});
  }
  if (method != "PUT" || subject.empty()) return error_reply(405, 405, "HTTP 405 Method Not Allowed");
  json request = json::parse(body, nullptr, false);
  std::string level = request.is_object() ? request.value("compatibility", "") : "";
  if (level != "BACKWARD" && level != "NONE")
    return error_reply(422, 42203, "Invalid compatibility level: the embedded registry knows BACKWARD and NONE");
  levels_[subject] = level;
  return reply({{"compatibility", level}});
}

HttpResponse SchemaRegistryServer::lookup_schema(const std::string& subject, const std::string& body) {
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) return error_reply(404, 40401, "Subject '" + subject + "' not found.");
  std::string canonical, why;
  if (!canonical_schema(body, canonical, why)) return error_reply(422, 42201, "Invalid schema: " + why);
  for (size_t v = 0; v < it->second.size(); v++) {
    int id = it->second[v];
    if (schemas_[id - 1] == canonical)
      return reply({{"subject", subject}, {"version", v + 1}, {"id", id}, {"schema", canonical}});
  }
  return error_reply(404, 40403, "Schema not found");
}

int SchemaRegistryServer::find_version(const std::string& subject, const std::string& text, HttpResponse& error) const {
  auto it = subjects_.find(subject);
  if (it == subjects_.end()) {
    error = error_reply(404, 40401, "Subject '" + subject + "' not found.");
    return 0;
  }
  int count = static_cast<int>(it->second.size());
  if (text == "latest" || text == "-1") return count;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end || v < 1) {
    error = error_reply(422, 42202,
                        "The specified version '" + text + "' is not a valid version id. Allowed values are between "
                        "[1, 2^31-1] and the string \"latest\"");
    return 0;
  }
  if (v > count) {
    error = error_reply(404, 40402, "Version " + text + " not found.");
    return 0;
  }
  return static_cast<int>(v);
}

HttpResponse SchemaRegistryServer::subject_version(const std::string& subject, const std::string& text) {
  HttpResponse error;
  int v = find_version(subject, text, error);
  if (!v) return error;
  int id = subjects_.at(subject)[v - 1];
  return reply({{"subject", subject}, {"version", v}, {"id", id}, {"schema", schemas_[id - 1]}});
}

HttpResponse SchemaRegistryServer::check_compatibility(const std::string& subject, const std::string& text,
                                                       const std::string& body) {
  HttpResponse error;
  int v = find_version(subject, text, error);
  if (!v) return error;
  std::string canonical, why;
  if (!canonical_schema(body, canonical, why)) return error_reply(422, 42201, "Invalid schema: " + why);
  int id = subjects_.at(subject)[v - 1];
  auto problems = avro_read_problems(json::parse(canonical), json::parse(schemas_[id - 1]));
  return reply({{"is_compatible", problems.empty()}, {"messages", problems}});
}

}  // namespace lakestream
