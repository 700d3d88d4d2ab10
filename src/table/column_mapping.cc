// Column mapping: readers resolve fields by physical name (name mode) and top-level columns by
// Parquet field id (id mode); writers assign ids and physical names and write under them.
#include "table/column_mapping.h"

#include <algorithm>
#include <cctype>

#include "sql/duckdb.h"
#include "table/parquet_file.h"
#include "util/error.h"
#include "util/files.h"

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

// `value` (a value of `type` whose struct fields are named by their physical names when
// `from_physical`, else by their logical names) with the struct fields named the other way, at
// every depth. `depth` names the lambda variables, so that nested lambdas do not shadow each other.
std::string renamed_value_sql(const std::string& value, const nlohmann::json& type, bool from_physical, int depth) {
  if (!has_struct(type)) return value;
  std::string kind = type.value("type", "");
  std::string x = "x" + std::to_string(depth);
  if (kind == "struct") {
    std::string fields;
    for (const auto& field : type["fields"]) {
      std::string logical = field.at("name").get<std::string>(), physical = field_physical_name(field);
      fields += (fields.empty() ? "" : ", ") + sql::quote_ident(from_physical ? logical : physical) + " := " +
                renamed_value_sql("(" + value + ")." + sql::quote_ident(from_physical ? physical : logical),
                                  field["type"], from_physical, depth + 1);
    }
    // struct_pack of a NULL struct would be a struct of NULLs.
    return "CASE WHEN (" + value + ") IS NULL THEN NULL ELSE struct_pack(" + fields + ") END";
  }
  if (kind == "array")
    return "list_transform(" + value + ", " + x + " -> " +
           renamed_value_sql(x, type["elementType"], from_physical, depth + 1) + ")";
  // A map: its entries, each key and value renamed, back into a map.
  return "map_from_entries(list_transform(map_entries(" + value + "), " + x + " -> struct_pack(key := " +
         renamed_value_sql(x + ".key", type["keyType"], from_physical, depth + 1) + ", value := " +
         renamed_value_sql(x + ".value", type["valueType"], from_physical, depth + 1) + ")))";
}

bool is_mapping_key(const std::string& key) { return key.starts_with("delta.columnMapping."); }

nlohmann::json metadata_without_mapping(const nlohmann::json& metadata) {
  nlohmann::json out = nlohmann::json::object();
  if (metadata.is_object())
    for (const auto& [key, value] : metadata.items())
      if (!is_mapping_key(key)) out[key] = value;
  return out;
}

// Calls `visit` on every struct field's metadata inside `type`, depth first.
template <typename Visit>
void for_each_nested_field(nlohmann::json& type, const Visit& visit) {
  if (!type.is_object()) return;
  std::string kind = type.value("type", "");
  if (kind == "struct") {
    for (auto& field : type["fields"]) {
      if (!field.contains("metadata") || !field["metadata"].is_object()) field["metadata"] = nlohmann::json::object();
      visit(field);
      for_each_nested_field(field["type"], visit);
    }
  } else if (kind == "array") {
    for_each_nested_field(type["elementType"], visit);
  } else if (kind == "map") {
    for_each_nested_field(type["keyType"], visit);
    for_each_nested_field(type["valueType"], visit);
  }
}

std::string mode_of(const Metadata& metadata) {
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  return mode == metadata.configuration.end() ? "none" : mode->second;
}

int64_t field_id_of(const nlohmann::json& metadata) {
  auto id = metadata.find(kFieldId);
  return id != metadata.end() && id->is_number_integer() ? id->get<int64_t>() : 0;
}

// The ids of a struct's fields as FIELD_IDS wants them: {name: id} for a field without nested
// structs, {name: {__duckdb_field_id: id, ...}} around one with them.
std::string nested_field_ids(const nlohmann::json& type);

std::string field_id_entry(const std::string& name, int64_t id, const nlohmann::json& type) {
  std::string nested = nested_field_ids(type);
  if (nested.empty()) return id ? sql::quote_ident(name) + ": " + std::to_string(id) : "";
  return sql::quote_ident(name) + ": {" + (id ? "__duckdb_field_id: " + std::to_string(id) + ", " : "") + nested + "}";
}

std::string nested_field_ids(const nlohmann::json& type) {
  if (!has_struct(type)) return "";
  std::string kind = type.value("type", "");
  std::vector<std::string> entries;
  if (kind == "struct") {
    for (const auto& field : type["fields"])
      entries.push_back(field_id_entry(field_physical_name(field), field_id_of(field.value("metadata", nlohmann::json::object())),
                                       field["type"]));
  } else if (kind == "array") {
    entries.push_back(field_id_entry("element", 0, type["elementType"]));
  } else {
    entries.push_back(field_id_entry("key", 0, type["keyType"]));
    entries.push_back(field_id_entry("value", 0, type["valueType"]));
  }
  std::string out;
  for (const auto& entry : entries)
    if (!entry.empty()) out += (out.empty() ? "" : ", ") + entry;
  return out;
}

}  // namespace

bool uses_column_mapping(const Metadata& metadata) {
  const std::string mode = mode_of(metadata);
  return mode == "name" || mode == "id";
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
  return uses_column_mapping(metadata) ? renamed_value_sql(physical_sql, type, true, 0) : physical_sql;
}

std::string physical_value_sql(const Metadata& metadata, const std::string& logical_sql, const nlohmann::json& type) {
  return uses_column_mapping(metadata) ? renamed_value_sql(logical_sql, type, false, 0) : logical_sql;
}

nlohmann::json without_column_mapping(const nlohmann::json& type) {
  nlohmann::json out = type;
  for_each_nested_field(out, [](nlohmann::json& field) { field["metadata"] = metadata_without_mapping(field["metadata"]); });
  return out;
}

Metadata with_column_mapping(const Metadata& wanted, const std::optional<Metadata>& previous,
                             const std::string& table_path) {
  Metadata out = wanted;
  const std::string mode = mode_of(wanted), before = previous ? mode_of(*previous) : "none";
  if (previous && mode != before && !(before == "none" && mode == "name"))
    throw Error("table " + table_path + " has delta.columnMapping.mode = " + before + "; changing it to " + mode +
                " in place is not possible (its files hold the columns by " +
                (before == "none" ? "name, not by field id" : "their physical names") +
                "). Write to a new table with column_mapping = \"" + mode +
                "\" and replay into it, or leave the table's mode as it is");
  std::set<std::string> kept;
  if (previous)
    for (const auto& column : previous->schema) kept.insert(column.name);
  // Columns new to the table start clean: mapping metadata copied from the table they were read
  // from (silver's columns are bronze's) names that table's files, not this one's.
  for (auto& column : out.schema) {
    if (kept.count(column.name)) continue;
    column.metadata = metadata_without_mapping(column.metadata);
    column.type = without_column_mapping(column.type);
  }
  if (!uses_column_mapping(out)) return out;

  const bool turned_on = previous && before == "none";
  int64_t max_id = 0;
  if (auto configured = out.configuration.find("delta.columnMapping.maxColumnId"); configured != out.configuration.end())
    max_id = std::strtoll(configured->second.c_str(), nullptr, 10);
  auto note_id = [&](const nlohmann::json& metadata) { max_id = std::max(max_id, field_id_of(metadata)); };
  for (auto& column : out.schema) {
    note_id(column.metadata);
    for_each_nested_field(column.type, [&](nlohmann::json& field) { note_id(field["metadata"]); });
  }
  // A table with Iceberg metadata names a new column in its files as its schema does, when no
  // other column's files use that name (a renamed column keeps its old one), else col_<uuid>:
  // names Avro allows, since Iceberg readers that find columns by name (not by field id) take
  // the files' names through Avro's rules.
  const bool iceberg = out.configuration.count("lakestream.iceberg") && out.configuration.at("lakestream.iceberg") == "true";
  std::set<std::string> physical_names;
  for (const auto& column : out.schema)
    if (column.metadata.contains(kPhysicalName)) physical_names.insert(column.metadata[kPhysicalName].get<std::string>());
  auto avro_name = [](const std::string& name) {
    if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
    return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
  };
  auto new_physical_name = [&](const std::string& name) {
    if (iceberg && avro_name(name) && physical_names.insert(name).second) return name;
    std::string uuid = new_uuid();
    if (iceberg) std::replace(uuid.begin(), uuid.end(), '-', '_');
    return (iceberg ? "col_" : "col-") + uuid;
  };
  // Fields get ids in schema order, a struct's fields after the struct.
  for (auto& column : out.schema) {
    const bool named_in_files = turned_on && kept.count(column.name);
    auto assign = [&](nlohmann::json& metadata, const std::string& name) {
      if (!metadata.contains(kFieldId)) metadata[kFieldId] = ++max_id;
      if (!metadata.contains(kPhysicalName)) metadata[kPhysicalName] = named_in_files ? name : new_physical_name(name);
    };
    assign(column.metadata, column.name);
    for_each_nested_field(column.type,
                          [&](nlohmann::json& field) { assign(field["metadata"], field.at("name").get<std::string>()); });
  }
  out.configuration["delta.columnMapping.maxColumnId"] = std::to_string(max_id);
  return out;
}

std::string field_ids_option(const Metadata& metadata, const std::vector<Column>& columns) {
  if (!uses_column_mapping(metadata)) return "";
  std::string entries;
  for (const auto& column : columns) {
    std::string entry = field_id_entry(physical_name(metadata, column), field_id_of(column.metadata), column.type);
    if (!entry.empty()) entries += (entries.empty() ? "" : ", ") + entry;
  }
  return entries.empty() ? "" : "FIELD_IDS {" + entries + "}";
}

namespace {

// `values` re-keyed from each column's logical name to its physical one, or back.
PartitionValues renamed_partition_values(const Metadata& metadata, const PartitionValues& values, bool to_physical) {
  if (!uses_column_mapping(metadata)) return values;
  PartitionValues renamed;
  for (const auto& column : metadata.schema) {
    const std::string physical = physical_name(metadata, column);
    if (auto it = values.find(to_physical ? column.name : physical); it != values.end())
      renamed[to_physical ? physical : column.name] = it->second;
  }
  return renamed;
}

}  // namespace

PartitionValues partition_values_by_name(const Metadata& metadata, const PartitionValues& stored) {
  return renamed_partition_values(metadata, stored, false);
}

PartitionValues partition_values_by_physical_name(const Metadata& metadata, const PartitionValues& by_name) {
  return renamed_partition_values(metadata, by_name, true);
}

bool maps_by_field_id(const Metadata& metadata) { return mode_of(metadata) == "id"; }

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
