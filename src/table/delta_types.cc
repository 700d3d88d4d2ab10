// Mapping Delta's (Spark's) type names to DuckDB types. timestamp is an instant (TIMESTAMPTZ, stored
// as INT64 micros adjusted to UTC); timestamp_ntz is a wall-clock time (TIMESTAMP). A column DuckDB
// types as plain TIMESTAMP is written as timestamp, its wall clock taken as UTC: that is Spark's
// TimestampType, which every Delta reader opens; timestamp_ntz (a table feature) only when a
// table already has it.
#include "table/delta_types.h"

#include <map>
#include <regex>

#include "sql/duckdb.h"
#include "table/parquet_file.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

const std::regex kDecimal(R"(decimal\(\s*(\d+)\s*,\s*(\d+)\s*\))");

}  // namespace

std::string delta_type_name(const nlohmann::json& delta_type) {
  if (delta_type.is_string()) return delta_type.get<std::string>();
  if (delta_type.is_object() && delta_type.contains("type") && delta_type["type"].is_string())
    return delta_type["type"].get<std::string>();
  throw Error("the Delta schema has a column type that is neither a name nor a struct/array/map: " + delta_type.dump());
}

bool is_nested_type(const nlohmann::json& delta_type) { return delta_type.is_object(); }

int decimal_precision(const nlohmann::json& delta_type) {
  if (!delta_type.is_string()) return 0;
  std::smatch m;
  std::string name = delta_type.get<std::string>();
  if (std::regex_match(name, m, kDecimal)) return std::stoi(m[1]);
  return name == "decimal" ? 10 : 0;
}

std::string duckdb_type_of(const nlohmann::json& delta_type) {
  if (delta_type.is_object()) {
    std::string kind = delta_type_name(delta_type);
    if (kind == "struct") {
      std::string fields;
      for (const auto& field : delta_type.at("fields"))
        fields += (fields.empty() ? "" : ", ") + sql::quote_ident(field.at("name").get<std::string>()) + " " +
                  duckdb_type_of(field.at("type"));
      return "STRUCT(" + fields + ")";
    }
    if (kind == "array") return duckdb_type_of(delta_type.at("elementType")) + "[]";
    if (kind == "map")
      return "MAP(" + duckdb_type_of(delta_type.at("keyType")) + ", " + duckdb_type_of(delta_type.at("valueType")) + ")";
    throw Error("the Delta schema has a nested type this reader does not know: " + delta_type.dump());
  }
  static const std::map<std::string, std::string> primitives = {
      {"string", "VARCHAR"},   {"long", "BIGINT"},        {"integer", "INTEGER"},
      {"short", "SMALLINT"},   {"byte", "TINYINT"},       {"float", "FLOAT"},
      {"double", "DOUBLE"},    {"boolean", "BOOLEAN"},    {"binary", "BLOB"},
      {"date", "DATE"},        {"timestamp", "TIMESTAMPTZ"}, {"timestamp_ntz", "TIMESTAMP"},
      {"decimal", "DECIMAL(10,0)"}};
  std::string name = delta_type_name(delta_type);
  if (auto it = primitives.find(name); it != primitives.end()) return it->second;
  std::smatch m;
  if (std::regex_match(name, m, kDecimal)) return "DECIMAL(" + m[1].str() + "," + m[2].str() + ")";
  throw Error("the Delta type " + name + " is not supported by lakestream (supported: string, long, integer, short, "
              "byte, float, double, boolean, binary, date, timestamp, timestamp_ntz, decimal(p,s), struct, array, map)");
}

std::string partition_value_sql(const std::optional<std::string>& value, const nlohmann::json& delta_type) {
  std::string type = duckdb_type_of(delta_type);
  if (!value) return "CAST(NULL AS " + type + ")";
  std::string name = delta_type_name(delta_type);
  if (name == "string") return sql::quote_literal(*value);
  // A cast from VARCHAR to BLOB takes escapes only; encode() keeps the value's UTF-8 bytes.
  if (name == "binary") return "encode(" + sql::quote_literal(*value) + ")";
  if (name == "timestamp") {
    // Spark writes "1970-01-02 08:45:00" (UTC, no offset); newer writers add one (…Z, +hh:mm).
    static const std::regex has_offset(R"(.*(Z|[+-]\d\d(:?\d\d)?)$)");
    std::string text = std::regex_match(*value, has_offset) ? *value : *value + "+00";
    return "CAST(" + sql::quote_literal(text) + " AS TIMESTAMPTZ)";
  }
  return "CAST(" + sql::quote_literal(*value) + " AS " + type + ")";
}

std::string partition_text_sql(const std::string& column_sql, const nlohmann::json& delta_type) {
  std::string name = delta_type_name(delta_type);
  if (is_nested_type(delta_type) || name == "binary")
    throw Error("a column of type " + name + " cannot be a partition column; partition by a string, number, date, "
                "boolean or timestamp column (or a derived one, e.g. dt = \"date(event_time)\")");
  std::string text;
  // ISO-8601 in UTC, as Spark's writer and the protocol have it: a reader in any time zone gets
  // the same instant (the older "2026-10-01 09:00:00" form is read in the session's zone).
  if (name == "timestamp")
    text = "strftime(timezone('UTC', " + column_sql + "), '%Y-%m-%dT%H:%M:%S.%fZ')";
  else if (name == "timestamp_ntz")
    text = "strftime(" + column_sql + ", '%Y-%m-%d %H:%M:%S.%f')";
  else
    text = "CAST(" + column_sql + " AS VARCHAR)";
  return "NULLIF(" + text + ", '')";
}

nlohmann::json delta_type_of_duckdb(const std::string& duckdb_type, const std::string& what) {
  static const std::map<std::string, std::string> names = {
      {"BIGINT", "long"},       {"INTEGER", "integer"},   {"SMALLINT", "short"},  {"TINYINT", "byte"},
      {"DOUBLE", "double"},     {"FLOAT", "float"},       {"BOOLEAN", "boolean"}, {"VARCHAR", "string"},
      {"DATE", "date"},         {"BLOB", "binary"},       {"TIMESTAMP WITH TIME ZONE", "timestamp"},
      {"TIMESTAMP", "timestamp"},  {"TIMESTAMP_S", "timestamp"}, {"TIMESTAMP_MS", "timestamp"},
      {"TIMESTAMP_NS", "timestamp"}, {"HUGEINT", "decimal(38,0)"}, {"UBIGINT", "decimal(20,0)"},
      {"UINTEGER", "long"}};
  auto it = names.find(duckdb_type);
  if (it != names.end()) return it->second;
  std::smatch m;
  static const std::regex duckdb_decimal(R"(DECIMAL\((\d+),\s*(\d+)\))");
  if (std::regex_match(duckdb_type, m, duckdb_decimal)) return "decimal(" + m[1].str() + "," + m[2].str() + ")";
  throw Error(what + " has the type " + duckdb_type + ", which a Delta table cannot hold; cast it, e.g. to DOUBLE, "
              "VARCHAR or DATE");
}

}  // namespace lakestream::delta
