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
  if (auto dv = add.find("deletionVector"); dv != add.end() && !dv->is_null())
    malformed(where, "file " + file.path + " has a deletion vector, which this reader does not support");
  return file;
}

Metadata read_metadata(const json& meta, const std::string& where) {
  Metadata metadata;
  metadata.id = required(meta, "id", where, "metaData").get<std::string>();
  if (auto format = meta.find("format"); format != meta.end() && format->is_object()) {
    auto provider = format->find("provider");
    if (provider != format->end() && provider->is_string() && provider->get<std::string>() != "parquet")
      malformed(where, "the table's data format is " + provider->get<std::string>() + ", not parquet");
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
        into.removes.push_back(std::move(file));
      } else if (kind == "metaData") {
        into.metadata = read_metadata(body, where);
      } else if (kind == "protocol") {
        Protocol protocol;
        protocol.min_reader_version = static_cast<int>(as_int64(required(body, "minReaderVersion", where, "protocol"), "minReaderVersion", where));
        protocol.min_writer_version = static_cast<int>(optional_int(body, "minWriterVersion", where, 2));
        if (auto features = body.find("readerFeatures"); features != body.end()) protocol.reader_features = *features;
        into.protocol = protocol;
      } else if (kind == "txn") {
        into.txns[required(body, "appId", where, "txn").get<std::string>()] =
            as_int64(required(body, "version", where, "txn"), "version", where);
      } else if (kind == "commitInfo") {
        into.commit_info = body;
      }
      // cdc, domainMetadata, checkpointMetadata, ...: nothing a version-1 reader must act on.
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

void check_readable(const Protocol& protocol, const std::string& table_path) {
  if (protocol.min_reader_version <= 1) return;
  std::string features = protocol.reader_features.is_array() ? " (reader features " + protocol.reader_features.dump() + ")" : "";
  throw Error("table " + table_path + " needs a Delta reader of version " + std::to_string(protocol.min_reader_version) +
              features +
              "; lakestream reads reader-version-1 tables only (no column mapping, deletion vectors or other table "
              "features). Read it with Spark or delta-rs, or rewrite it without those features");
}

std::string schema_string(const std::vector<Column>& schema) {
  json fields = json::array();
  for (const auto& column : schema)
    fields.push_back({{"name", column.name}, {"type", column.type}, {"nullable", column.nullable}, {"metadata", json::object()}});
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
      schema.push_back(std::move(column));
    }
  } catch (const json::exception& e) {
    malformed(where, std::string("schemaString cannot be parsed (") + e.what() + ")");
  }
  return schema;
}

json protocol_action(int min_reader_version, int min_writer_version) {
  return {{"protocol", {{"minReaderVersion", min_reader_version}, {"minWriterVersion", min_writer_version}}}};
}

json metadata_action(const Metadata& metadata) {
  json configuration = json::object();
  for (const auto& [key, value] : metadata.configuration) configuration[key] = value;
  return {{"metaData",
           {{"id", metadata.id},
            {"format", {{"provider", "parquet"}, {"options", json::object()}}},
            {"schemaString", schema_string(metadata.schema)},
            {"partitionColumns", metadata.partition_columns},
            {"configuration", configuration},
            {"createdTime", metadata.created_time}}}};
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
  return {{"add", add}};
}

json remove_action(const RemoveFile& file) {
  return {{"remove",
           {{"path", url_encode_path(file.path)}, {"deletionTimestamp", file.deletion_timestamp}, {"dataChange", file.data_change}}}};
}

json txn_action(const std::string& app_id, int64_t version, int64_t last_updated_ms) {
  return {{"txn", {{"appId", app_id}, {"version", version}, {"lastUpdated", last_updated_ms}}}};
}

}  // namespace lakestream::delta
