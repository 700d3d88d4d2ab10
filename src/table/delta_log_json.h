// The Delta log's actions as JSON, in and out: one commit file is one action object per line,
// and a classic checkpoint row (converted to JSON) is an object with one non-null action.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "table/delta_table.h"

namespace lakestream::delta {

// What one commit file (or one checkpoint) says, action by action.
struct LogActions {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  std::vector<AddFile> adds;      // paths URL-decoded
  std::vector<RemoveFile> removes;
  std::vector<ChangeDataFile> change_data;  // cdc actions
  std::map<std::string, int64_t> txns;
  std::map<std::string, int64_t> txn_last_updated;  // for the txns that carry lastUpdated
  nlohmann::json commit_info = nlohmann::json::object();
  // A v2 checkpoint's sidecar files (PROTOCOL.md, "V2 Spec"): Parquet files of add and remove
  // actions in `_delta_log/_sidecars/`, by their path as written (a name, URL-encoded) and size.
  struct Sidecar {
    std::string path;
    int64_t size = 0;
    std::map<std::string, std::string> tags;  // a writer's notes (lakestream's: table/checkpoint_sidecars.h)
  };
  std::vector<Sidecar> sidecars;
  // domainMetadata actions: domain -> its configuration, nullopt when the action removed it.
  std::map<std::string, std::optional<std::string>> domains;
};

// Adds the actions of one JSON object to `into` (null members, as checkpoint rows have, are
// skipped; unknown action kinds are ignored, as the protocol allows). Throws Error naming
// `where` when an action is malformed.
void read_action(const nlohmann::json& action, LogActions& into, const std::string& where);

// Parses a whole commit file's text; `where` (the file path) goes into error messages.
LogActions parse_commit_text(const std::string& text, const std::string& where);

// Spark's StructType JSON for a schema, and back.
std::string schema_string(const std::vector<Column>& schema);
std::vector<Column> parse_schema_string(const std::string& schema_json, const std::string& where);

// The action lines a writer emits.
nlohmann::json protocol_action(const Protocol& protocol);
nlohmann::json metadata_action(const Metadata& metadata);
nlohmann::json add_action(const AddFile& file);
nlohmann::json remove_action(const RemoveFile& file);
nlohmann::json cdc_action(const ChangeDataFile& file);
// lastUpdated is left out when nullopt (it is optional in the protocol).
nlohmann::json txn_action(const std::string& app_id, int64_t version, std::optional<int64_t> last_updated_ms);
nlohmann::json domain_metadata_action(const std::string& domain, const std::string& configuration);

}  // namespace lakestream::delta
