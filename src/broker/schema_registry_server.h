// The embedded schema registry: the part of Confluent Schema Registry's REST API that producers
// (Confluent's serializers, @kafkajs/confluent-schema-registry) and lakestream use, in memory,
// for Avro schemas, beside the embedded broker (`lakestream broker --schema-registry`).
//
//   POST /subjects/{s}/versions                   register (BACKWARD-compatible with the latest) -> {"id"}
//   POST /subjects/{s}                            look a schema up -> {"subject","version","id","schema"}
//   GET  /subjects                                ["s", ...]
//   GET  /subjects/{s}/versions                   [1, 2, ...]
//   GET  /subjects/{s}/versions/{v|latest}        {"subject","version","id","schema"}
//   GET  /schemas/ids/{id}                        {"schema"}
//   GET  /schemas/ids/{id}/versions               [{"subject","version"}, ...]
//   POST /compatibility/subjects/{s}/versions/{v|latest}   {"is_compatible", "messages"}
//   GET  /config, GET /config/{s}, PUT /config/{s}         the compatibility level: BACKWARD
//                                                          (the default) or NONE
//
// Errors have Confluent's shape, {"error_code": 40401, "message": "..."}: 40401 subject not
// found, 40402 version not found, 40403 schema not found, 409 incompatible schema, 42201 invalid
// schema, 42202 invalid version. Ids are global and a schema registered twice keeps its id.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "util/http_server.h"

namespace lakestream {

class SchemaRegistryServer {
 public:
  // Listens on 127.0.0.1:`port` (0: a free port). Throws Error when the port cannot be bound.
  explicit SchemaRegistryServer(int port = 0);
  ~SchemaRegistryServer();
  SchemaRegistryServer(const SchemaRegistryServer&) = delete;
  SchemaRegistryServer& operator=(const SchemaRegistryServer&) = delete;

  // "http://127.0.0.1:PORT".
  std::string url() const;

  // Answers one request (what the HTTP server calls; public for tests in process).
  HttpResponse handle(const HttpRequest& request);

 private:
  HttpResponse register_schema(const std::string& subject, const std::string& body);
  HttpResponse lookup_schema(const std::string& subject, const std::string& body);
  HttpResponse check_compatibility(const std::string& subject, const std::string& version, const std::string& body);
  HttpResponse config(const std::string& method, const std::string& subject, const std::string& body);
  HttpResponse subject_version(const std::string& subject, const std::string& version);
  // The version number `text` names ("3", "latest") of `subject`, or 0 with `error` set.
  int find_version(const std::string& subject, const std::string& text, HttpResponse& error) const;

  std::mutex mutex_;
  std::vector<std::string> schemas_;                  // by id - 1, canonical JSON text
  std::map<std::string, std::vector<int>> subjects_;  // subject -> schema id of each version (version - 1)
  std::map<std::string, std::string> levels_;         // subject -> compatibility level set for it
  std::unique_ptr<HttpServer> http_;                  // last: stops before the data goes
};

}  // namespace lakestream
