// A client of a Confluent-compatible schema registry, for Avro sources: the writer schema of a
// schema id (cached: an id's schema never changes), and where an id sits in a subject's history,
// for the errors that name a schema's version. Speaks HTTP(S) through libcurl with the source's
// schema_registry_properties (basic auth, TLS files).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "util/error.h"

namespace lakestream {

// The registry cannot be reached, or answered with something other than a schema or "not
// found". A retryable error for the run: it stops before anything is planned, and the next run
// goes on from there. Never a reason to quarantine a record.
class RegistryUnavailable : public Error {
 public:
  using Error::Error;
};

struct SubjectVersion {
  std::string subject;
  int version = 0;
};

class SchemaRegistryClient {
 public:
  // `settings.url` may be "embedded" / "embedded:NAME" (the running broker's registry); throws
  // Error when that broker is not running.
  explicit SchemaRegistryClient(const SchemaRegistrySettings& settings);

  // The schema (JSON text) with `id`; nullopt when the registry has no such id (40403).
  std::optional<std::string> schema_by_id(int id);
  // The subjects and versions that use schema `id` (empty when the registry does not say).
  std::vector<SubjectVersion> versions_of(int id);
  // The schema of `subject` at `version`; nullopt when there is none.
  std::optional<std::string> schema_of_version(const std::string& subject, int version);

  const std::string& url() const { return url_; }

 private:
  // GETs `path`; returns the body of a 200, nullopt for a 404; throws RegistryUnavailable for
  // anything else (after three tries for a dropped connection or a 5xx).
  std::optional<std::string> get(const std::string& path);

  std::string url_;  // without a trailing '/'
  std::vector<std::pair<std::string, std::string>> properties_;
  std::map<int, std::string> schemas_;
};

}  // namespace lakestream
