#include "streams/writer_schemas.h"

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace lakestream {
namespace {

std::string type_text(const nlohmann::json& delta_type) {
  return delta_type.is_string() ? delta_type.get<std::string>() : delta_type.dump();
}

// The fields of a schema (JSON text) that a writer must always give: not a union with null and
// without a default.
std::set<std::string> required_fields(const std::string& schema_json) {
  std::set<std::string> required;
  auto schema = nlohmann::json::parse(schema_json, nullptr, false);
  if (!schema.is_object() || !schema.contains("fields")) return required;
  for (const auto& field : schema["fields"]) {
    if (!field.is_object() || field.contains("default")) continue;
    const auto& type = field.value("type", nlohmann::json());
    bool nullable = false;
    if (type.is_array())
      for (const auto& branch : type) nullable = nullable || branch == "null";
    if (!nullable) required.insert(field.value("name", ""));
  }
  return required;
}

}  // namespace

WriterSchemas::WriterSchemas(const Source& source, const std::string& table, std::vector<delta::Column> table_fields)
    : source_(source), table_(table), registry_(source.schema_registry), columns_(std::move(table_fields)) {}

const AvroWriterSchema* WriterSchemas::schema(int32_t id) {
  if (auto it = known_.find(id); it != known_.end()) return it->second.get();
  if (unknown_.count(id)) return nullptr;
  auto text = registry_.schema_by_id(id);
  if (!text) {
    unknown_.insert(id);
    return nullptr;
  }
  auto writer = std::make_unique<AvroWriterSchema>(id, *text);
  std::vector<AvroColumn> fields = row_columns(*writer);
  check_against_table(*writer, fields);
  for (const auto& field : fields) {
    bool known = false;
    for (const auto& column : columns_) known = known || column.name == field.name;
    if (!known) columns_.push_back({field.name, field.delta_type, true});
  }
  return (known_[id] = std::move(writer)).get();
}

std::string WriterSchemas::describe(int32_t id) {
  std::string text = "schema id " + std::to_string(id);
  auto uses = registry_.versions_of(id);
  for (const auto& use : uses)
    if (use.subject == source_.topic + "-value") return text + " (subject " + use.subject + ", version " + std::to_string(use.version) + ")";
  if (!uses.empty()) text += " (subject " + uses[0].subject + ", version " + std::to_string(uses[0].version) + ")";
  return text;
}

std::vector<AvroColumn> WriterSchemas::row_columns(const AvroWriterSchema& writer) {
  if (source_.envelope != SourceEnvelope::Debezium) return writer.columns();
  std::vector<AvroColumn> fields;
  for (const auto& column : writer.columns()) {
    if (column.name != "after") continue;
    if (!column.delta_type.is_object() || column.delta_type.value("type", "") != "struct") break;
    for (const auto& field : column.delta_type["fields"])
      fields.push_back({field.value("name", ""), field["type"], field.value("nullable", true), false});
    fields.push_back({kDebeziumOpColumn, "string", true, false});
    fields.push_back({kDebeziumTsColumn, "long", true, false});
    fields.push_back({kDebeziumLsnColumn, "long", true, false});
    return fields;
  }
  throw Error("topic " + source_.topic + ": the writer " + describe(writer.id()) +
              " is not Debezium's change event envelope: it has no record field \"after\" (envelope = \"debezium\" "
              "reads the row from after, or before for a delete). Point the source at the connector's topic, or "
              "remove envelope.");
}

void WriterSchemas::check_against_table(const AvroWriterSchema& writer, const std::vector<AvroColumn>& fields) {
  const std::string what_to_do =
      " Nothing was read. Register a version that keeps the field as it was (a new field with a default can "
      "carry the new form), or write to a new table (change the stream's table) with a new checkpoint, which reads "
      "the topic again.";
  for (const auto& field : fields) {
    for (const auto& column : columns_) {
      if (column.name != field.name || column.type == field.delta_type) continue;
      throw Error("topic " + source_.topic + ": the writer " + describe(writer.id()) + " changes field \"" + field.name +
                  "\" from " + type_text(column.type) + " to " + type_text(field.delta_type) + ", which table " +
                  table_ + " cannot take: its files hold " + type_text(column.type) + " in that column." + what_to_do);
    }
  }
  // A field gone from the writer is only a problem when earlier versions always gave it.
  std::vector<std::string> missing;
  for (const auto& column : columns_) {
    bool present = false;
    for (const auto& field : fields) present = present || field.name == column.name;
    if (!present) missing.push_back(column.name);
  }
  if (missing.empty()) return;
  for (const auto& use : registry_.versions_of(writer.id())) {
    if (use.version <= 1) continue;
    auto previous = registry_.schema_of_version(use.subject, use.version - 1);
    if (!previous) continue;
    auto required = required_fields(*previous);
    for (const auto& name : missing)
      if (required.count(name))
        throw Error("topic " + source_.topic + ": the writer " + describe(writer.id()) + " removes field \"" + name +
                    "\", which version " + std::to_string(use.version - 1) + " of " + use.subject +
                    " required (no null, no default): rows of table " + table_ +
                    " would lack a value its readers count on." + what_to_do);
  }
}

}  // namespace lakestream
