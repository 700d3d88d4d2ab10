// Column mapping for readers: resolving by physical name (name mode), and top-level columns by
// Parquet field id (id mode).
#include "table/column_mapping.h"

#include "sql/duckdb.h"
#include "table/parquet_file.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

constexpr const char* kPhysicalName = "delta.columnMapping.physicalName";
constexpr const char* kFieldId = "delta.columnMapping.id";

std::string field_physical_name(const nlohmann::json& field) {
  if (auto metadata = field.find("metadata"); metadata != field.end() && metadata->is_object())
    if (auto name = metadata->find(kPhysicalName); name != metadata->end() && name->is_string())
      return name->get<std::string>();
  return field.at("name").get<std::string>();
}

bool has_struct(const nlohmann::json& type) {
  if (!type.is_object()) return false;
  std::string kind = type.value("type", "");
  if (kind == "struct") return true;
  if (kind == "array") return has_struct(type["elementType"]);
  if (kind == "map") return has_struct(type["keyType"]) || has_struct(type["valueType"]);
  return false;
}

nlohmann::json renamed(const nlohmann::json& type) {
  if (!type.is_object()) return type;
  nlohmann::json out = type;
  std::string kind = type.value("type", "");
  if (kind == "struct") {
    for (auto& field : out["fields"]) {
      field["type"] = renamed(field["type"]);
      field["name"] = field_physical_name(field);
    }
  } else if (kind == "array") {
    out["elementType"] = renamed(type["elementType"]);
  } else if (kind == "map") {
    out["keyType"] = renamed(type["keyType"]);
    out["valueType"] = renamed(type["valueType"]);
  }
  return out;
}

// `depth` names the lambda variables, so that nested lambdas do not shadow each other.
std::string logical_sql(const std::string& value, const nlohmann::json& type, int depth) {
  if (!has_struct(type)) return value;
  std::string kind = type.value("type", "");
  std::string x = "x" + std::to_string(depth);
  if (kind == "struct") {
    std::string fields;
    for (const auto& field : type["fields"])
      fields += (fields.empty() ? "" : ", ") + sql::quote_ident(field.at("name").get<std::string>()) + " := " +
                logical_sql("(" + value + ")." + sql::quote_ident(field_physical_name(field)), field["type"], depth + 1);
    // struct_pack of a NULL struct would be a struct of NULLs.
    return "CASE WHEN (" + value + ") IS NULL THEN NULL ELSE struct_pack(" + fields + ") END";
  }
  if (kind == "array")
    return "list_transform(" + value + ", " + x + " -> " + logical_sql(x, type["elementType"], depth + 1) + ")";
  // A map: its entries, each key and value renamed, back into a map.
  return "map_from_entries(list_transform(map_entries(" + value + "), " + x + " -> struct_pack(key := " +
         logical_sql(x + ".key", type["keyType"], depth + 1) + ", value := " +
         logical_sql(x + ".value", type["valueType"], depth + 1) + ")))";
}

}  // namespace

bool uses_column_mapping(const Metadata& metadata) {
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  return mode != metadata.configuration.end() && (mode->second == "name" || mode->second == "id");
}

std::string physical_name(const Metadata& metadata, const Column& column) {
  if (!uses_column_mapping(metadata)) return column.name;
  if (auto name = column.metadata.find(kPhysicalName); name != column.metadata.end() && name->is_string())
    return name->get<std::string>();
  return column.name;
}

nlohmann::json physical_type(const Metadata& metadata, const nlohmann::json& type) {
  return uses_column_mapping(metadata) ? renamed(type) : type;
}

std::string logical_value_sql(const Metadata& metadata, const std::string& physical_sql, const nlohmann::json& type) {
  return uses_column_mapping(metadata) ? logical_sql(physical_sql, type, 0) : physical_sql;
}

bool maps_by_field_id(const Metadata& metadata) {
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  return mode != metadata.configuration.end() && mode->second == "id";
}

std::string parquet_schema_by_field_id(const Metadata& metadata, const std::set<std::string>& left_out) {
  std::string entries;
  for (const auto& column : metadata.schema) {
    if (left_out.count(column.name)) continue;
    auto id = column.metadata.find(kFieldId);
    if (id == column.metadata.end() || !id->is_number_integer())
      throw Error("column " + column.name + " of a table with column mapping in id mode has no " + kFieldId +
                  " in its metadata; the table's schema is damaged");
    entries += (entries.empty() ? "" : ", ") + std::to_string(id->get<int64_t>()) + ": {name: " +
               sql::quote_literal(physical_name(metadata, column)) + ", type: " +
               sql::quote_literal(duckdb_type_of(physical_type(metadata, column.type))) + ", default_value: NULL}";
  }
  return "MAP {" + entries + "}";
}

}  // namespace lakestream::delta
