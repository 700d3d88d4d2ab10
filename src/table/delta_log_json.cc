// Reading and writing Delta log actions (protocol, metaData, add, remove, txn, commitInfo) as
// nlohmann::json. Readers are lenient where the protocol lets writers differ (optional fields,
// stats as a string or as a struct) and strict where a wrong guess would return wrong rows.
#include "table/delta_log_json.h"

#include <sstream>

#include "table/path_encoding.h"
#include "util/error.h"

namespace lakestream::delta {

using nlohmann::json;

namespace {

[[noreturn]] void malformed(const std::string& where, const std::string& what) {
  throw Error("malformed Delta log " + where + ": " + what +
              "; the table's log is damaged or was not written by a Delta writer");
}

const json& required(const json& object, const char* key, const std::string& where, const char* action) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) malformed(where, std::string(action) + " action has no " + key);
  return *it;
}

// A whole number that fits int64; a fraction or a number past its range (which get<int64_t>
// would turn into garbage) makes the log malformed.
int64_t as_int64(const json& value, const char* key, const std::string& where) {
  if (value.is_number_integer() && !(value.is_number_unsigned() && value.get<uint64_t>() > INT64_MAX))
    return value.get<int64_t>();
  malformed(where, std::string(key) + " is " + value.dump() + ", not a whole number of 64 bits");
}

int64_t optional_int(const json& object, const char* key, const std::string& where, int64_t fallback = 0) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? as_int64(*it, key, where) : fallback;
}

bool optional_bool(const json& object, const char* key, bool fallback) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::map<std::string, std::optional<std::string>> read_partition_values(const json& add) {
  std::map<std::string, std::optional<std::string>> values;
  auto it = add.find("partitionValues");
  if (it == add.end() || !it->is_object()) return values;
  for (const auto& [name, value] : it->items())
    values[name] = value.is_string() ? std::optional<std::string>(value.get<std::string>()) : std::nullopt;
  return values;
}

std::optional<DeletionVector> read_deletion_vector(const json& action, const std::string& where) {
  auto it = action.find("deletionVector");
  if (it == action.end() || it->is_null()) return std::nullopt;
  if (!it->is_object()) malformed(where, "deletionVector is not an object");
  const json& body = *it;
  DeletionVector vector;
  vector.storage_type = required(body, "storageType", where, "deletionVector").get<std::string>();
  vector.path_or_inline_dv = required(body, "pathOrInlineDv", where, "deletionVector").get<std::string>();
  if (auto offset = body.find("offset"); offset != body.end() && !offset->is_null())
    vector.offset = as_int64(*offset, "offset", where);
  vector.size_in_bytes = as_int64(required(body, "sizeInBytes", where, "deletionVector"), "sizeInBytes", where);
  vector.cardinality = as_int64(required(body, "cardinality", where, "deletionVector"), "cardinality", where);
  if (vector.storage_type != "u" && vector.storage_type != "i" && vector.storage_type != "p")
    malformed(where, "deletionVector has storageType " + json(vector.storage_type).dump() + " (the protocol knows u, i and p)");
  return vector;
}

json deletion_vector_json(const DeletionVector& vector) {
  json body = {{"storageType", vector.storage_type},
               {"pathOrInlineDv", vector.path_or_inline_dv},
               {"sizeInBytes", vector.size_in_bytes},
               {"cardinality", vector.cardinality}};
  if (vector.offset) body["offset"] = *vector.offset;
  return body;
}

AddFile read_add(const json& add, const std::string& where) {
  AddFile file;
  file.path = url_decode_path(required(add, "path", where, "add").get<std::string>());
  file.partition_values = read_partition_values(add);
  file.size = optional_int(add, "size", where);
  file.modification_time = optional_int(add, "modificationTime", where);
  file.data_change = optional_bool(add, "dataChange", true);
  // Spark writes stats as a JSON string; checkpoints may carry them parsed (stats_parsed) instead.
  if (auto it = add.find("stats"); it != add.end() && it->is_string()) {
    file.stats = it->get<std::string>();
  } else if (auto parsed = add.find("stats_parsed"); parsed != add.end() && parsed->is_object()) {
    file.stats = parsed->dump();
  }
  file.deletion_vector = read_deletion_vector(add, where);
  if (auto base = add.find("baseRowId"); base != add.end() && base->is_number())
    file.base_row_id = as_int64(*base, "baseRowId", where);
  if (auto version = add.find("defaultRowCommitVersion"); version != add.end() && version->is_number())
    file.default_row_commit_version = as_int64(*version, "defaultRowCommitVersion", where);
  // A checkpoint's map column comes back as an object; a null value is no tag.
  if (auto tags = add.find("tags"); tags != add.end() && tags->is_object())
    for (const auto& [key, value] : tags->items())
      if (value.is_string()) file.tags[key] = value.get<std::string>();
  return file;
}

std::vector<std::string> feature_names(const json& protocol, const char* key, const std::string& where) {
  std::vector<std::string> names;
  auto it = protocol.find(key);
  if (it == protocol.end() || it->is_null()) return names;
  if (!it->is_array()) malformed(where, std::string("protocol ") + key + " is not a list of names");
  for (const auto& name : *it) names.push_back(name.get<std::string>());
  return names;
}

std::optional<std::string> optional_string(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? std::optional<std::string>(it->get<std::string>()) : std::nullopt;
}

Metadata read_metadata(const json& meta, const std::string& where) {
  Metadata metadata;
  metadata.id = required(meta, "id", where, "metaData").get<std::string>();
  metadata.name = optional_string(meta, "name");
  metadata.description = optional_string(meta, "description");
  if (auto format = meta.find("format"); format != meta.end() && format->is_object()) {
    auto provider = format->find("provider");
    if (provider != format->end() && provider->is_string() && provider->get<std::string>() != "parquet")
      malformed(where, "the table's data format is " + provider->get<std::string>() + ", not parquet");
    if (auto options = format->find("options"); options != format->end() && options->is_object())
      for (const auto& [key, value] : options->items())
        if (value.is_string()) metadata.format_options[key] = value.get<std::string>();
  }
  metadata.schema = parse_schema_string(required(meta, "schemaString", where, "metaData").get<std::string>(), where);
  if (auto cols = meta.find("partitionColumns"); cols != meta.end() && cols->is_array())
    for (const auto& c : *cols) metadata.partition_columns.push_back(c.get<std::string>());
  if (auto conf = meta.find("configuration"); conf != meta.end() && conf->is_object())
    for (const auto& [key, value] : conf->items())
      if (value.is_string()) metadata.configuration[key] = value.get<std::string>();
  metadata.created_time = optional_int(meta, "createdTime", where);
  return metadata;
}

}  // namespace

void read_action(const json& action, LogActions& into, const std::string& where) {
  if (!action.is_object()) malformed(where, "a line is not a JSON object");
  for (const auto& [kind, body] : action.items()) {
    if (body.is_null()) continue;
    try {
      if (kind == "add") {
        into.adds.push_back(read_add(body, where));
      } else if (kind == "remove") {
        RemoveFile file;
        file.path = url_decode_path(required(body, "path", where, "remove").get<std::string>());
        file.deletion_timestamp = optional_int(body, "deletionTimestamp", where);
        file.data_change = optional_bool(body, "dataChange", true);
        if (body.contains("partitionValues") && body["partitionValues"].is_object())
          file.partition_values = read_partition_values(body);
        if (auto size = body.find("size"); size != body.end() && size->is_number()) file.size = as_int64(*size, "size", where);
        file.deletion_vector = read_deletion_vector(body, where);
        if (auto base = body.find("baseRowId"); base != body.end() && base->is_number())
          file.base_row_id = as_int64(*base, "baseRowId", where);
        if (auto version = body.find("defaultRowCommitVersion"); version != body.end() && version->is_number())
          file.default_row_commit_version = as_int64(*version, "defaultRowCommitVersion", where);
        into.removes.push_back(std::move(file));
      } else if (kind == "metaData") {
        into.metadata = read_metadata(body, where);
      } else if (kind == "protocol") {
        Protocol protocol;
        protocol.min_reader_version = static_cast<int>(as_int64(required(body, "minReaderVersion", where, "protocol"), "minReaderVersion", where));
        protocol.min_writer_version = static_cast<int>(optional_int(body, "minWriterVersion", where, 2));
        protocol.reader_features = feature_names(body, "readerFeatures", where);
        protocol.writer_features = feature_names(body, "writerFeatures", where);
        into.protocol = protocol;
      } else if (kind == "txn") {
        std::string app_id = required(body, "appId", where, "txn").get<std::string>();
        into.txns[app_id] = as_int64(required(body, "version", where, "txn"), "version", where);
        if (auto last = body.find("lastUpdated"); last != body.end() && last->is_number())
          into.txn_last_updated[app_id] = as_int64(*last, "lastUpdated", where);
      } else if (kind == "commitInfo") {
        into.commit_info = body;
      } else if (kind == "cdc") {
        ChangeDataFile file;
        file.path = url_decode_path(required(body, "path", where, "cdc").get<std::string>());
        if (body.contains("partitionValues") && body["partitionValues"].is_object()) file.partition_values = read_partition_values(body);
        file.size = as_int64(required(body, "size", where, "cdc"), "size", where);
        into.change_data.push_back(std::move(file));
      } else if (kind == "sidecar") {
        LogActions::Sidecar sidecar{required(body, "path", where, "sidecar").get<std::string>(),
                                    as_int64(required(body, "sizeInBytes", where, "sidecar"), "sizeInBytes", where), {}};
        // A map: an object in a commit's JSON, or a checkpoint row's to_json of a MAP.
        if (body.contains("tags") && body["tags"].is_object())
          for (const auto& [key, value] : body["tags"].items())
            if (value.is_string()) sidecar.tags[key] = value.get<std::string>();
        into.sidecars.push_back(std::move(sidecar));
      } else if (kind == "domainMetadata") {
        std::string domain = required(body, "domain", where, "domainMetadata").get<std::string>();
        if (optional_bool(body, "removed", false))
          into.domains[domain] = std::nullopt;
        else
          into.domains[domain] = required(body, "configuration", where, "domainMetadata").get<std::string>();
      }
      // checkpointMetadata, ...: nothing a reader or writer of the table's rows acts on.
    } catch (const json::exception& e) {
      malformed(where, kind + " action has a field of the wrong type (" + e.what() + ")");
    }
  }
}

LogActions parse_commit_text(const std::string& text, const std::string& where) {
  LogActions actions;
  std::istringstream lines(text);
  std::string line;
  int line_number = 0;
  while (std::getline(lines, line)) {
    line_number++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json action;
    try {
      action = json::parse(line);
    } catch (const json::exception& e) {
      malformed(where, "line " + std::to_string(line_number) + " is not valid JSON (" + e.what() + ")");
    }
    read_action(action, actions, where + " line " + std::to_string(line_number));
  }
  return actions;
}

std::string schema_string(const std::vector<Column>& schema) {
  json fields = json::array();
  for (const auto& column : schema)
    fields.push_back({{"name", column.name}, {"type", column.type}, {"nullable", column.nullable},
                      {"metadata", column.metadata.is_object() ? column.metadata : json::object()}});
  return json{{"type", "struct"}, {"fields", fields}}.dump();
}

std::vector<Column> parse_schema_string(const std::string& schema_json, const std::string& where) {
  std::vector<Column> schema;
  try {
    json parsed = json::parse(schema_json);
    if (parsed.value("type", "") != "struct" || !parsed.contains("fields")) malformed(where, "schemaString is not a struct");
    for (const auto& field : parsed.at("fields")) {
      Column column;
      column.name = field.at("name").get<std::string>();
      column.type = field.at("type");
      column.nullable = field.value("nullable", true);
      if (auto metadata = field.find("metadata"); metadata != field.end() && metadata->is_object())
        column.metadata = *metadata;
      schema.push_back(std::move(column));
    }
  } catch (const json::exception& e) {
    malformed(where, std::string("schemaString cannot be parsed (") + e.what() + ")");
  }
  return schema;
}

json protocol_action(const Protocol& protocol) {
  json body = {{"minReaderVersion", protocol.min_reader_version}, {"minWriterVersion", protocol.min_writer_version}};
  // The spec: readerFeatures exists exactly when the reader version is 3, writerFeatures when the
  // writer version is 7.
  if (protocol.min_reader_version >= 3) body["readerFeatures"] = protocol.reader_features;
  if (protocol.min_writer_version >= 7) body["writerFeatures"] = protocol.writer_features;
  return {{"protocol", body}};
}

json metadata_action(const Metadata& metadata) {
  json configuration = json::object();
  for (const auto& [key, value] : metadata.configuration) configuration[key] = value;
  json options = json::object();
  for (const auto& [key, value] : metadata.format_options) options[key] = value;
  json body = {{"id", metadata.id},
               {"format", {{"provider", "parquet"}, {"options", options}}},
               {"schemaString", schema_string(metadata.schema)},
               {"partitionColumns", metadata.partition_columns},
               {"configuration", configuration},
               {"createdTime", metadata.created_time}};
  if (metadata.name) body["name"] = *metadata.name;
  if (metadata.description) body["description"] = *metadata.description;
  return {{"metaData", body}};
}

json add_action(const AddFile& file) {
  json partition_values = json::object();
  for (const auto& [name, value] : file.partition_values) partition_values[name] = value ? json(*value) : json(nullptr);
  json add = {{"path", url_encode_path(file.path)},
              {"partitionValues", partition_values},
              {"size", file.size},
              {"modificationTime", file.modification_time},
              {"dataChange", file.data_change}};
  if (!file.stats.empty()) add["stats"] = file.stats;
  if (file.deletion_vector) add["deletionVector"] = deletion_vector_json(*file.deletion_vector);
  if (file.base_row_id) add["baseRowId"] = *file.base_row_id;
  if (file.default_row_commit_version) add["defaultRowCommitVersion"] = *file.default_row_commit_version;
  if (!file.tags.empty()) add["tags"] = file.tags;
  return {{"add", add}};
}

json remove_action(const RemoveFile& file) {
  json remove = {{"path", url_encode_path(file.path)}, {"deletionTimestamp", file.deletion_timestamp},
                 {"dataChange", file.data_change}};
  if (file.partition_values && file.size) {
    json partition_values = json::object();
    for (const auto& [name, value] : *file.partition_values) partition_values[name] = value ? json(*value) : json(nullptr);
    remove["extendedFileMetadata"] = true;
    remove["partitionValues"] = partition_values;
    remove["size"] = *file.size;
  }
  if (file.deletion_vector) remove["deletionVector"] = deletion_vector_json(*file.deletion_vector);
  if (file.base_row_id) remove["baseRowId"] = *file.base_row_id;
  if (file.default_row_commit_version) remove["defaultRowCommitVersion"] = *file.default_row_commit_version;
  return {{"remove", remove}};
}

json cdc_action(const ChangeDataFile& file) {
  json partition_values = json::object();
  for (const auto& [name, value] : file.partition_values) partition_values[name] = value ? json(*value) : json(nullptr);
  return {{"cdc", {{"path", url_encode_path(file.path)}, {"partitionValues", partition_values}, {"size", file.size}, {"dataChange", false}}}};
}

json domain_metadata_action(const std::string& domain, const std::string& configuration) {
  return {{"domainMetadata", {{"domain", domain}, {"configuration", configuration}, {"removed", false}}}};
}

json txn_action(const std::string& app_id, int64_t version, std::optional<int64_t> last_updated_ms) {
  json body = {{"appId", app_id}, {"version", version}};
  if (last_updated_ms) body["lastUpdated"] = *last_updated_ms;
  return {{"txn", body}};
}

}  // namespace lakestream::delta
