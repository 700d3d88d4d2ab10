// The rules are checked on the Parquet files about to be committed, with the partition values
// added back as columns, so a rule sees each row exactly as readers will.
#include "table/write_rules.h"

#include <algorithm>
#include <cctype>

#include "sql/duckdb.h"
#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

struct Rule {
  std::string what;        // "invariant of column n", "CHECK constraint positive", ...
  std::string expression;  // SQL; a row breaks the rule unless it is true (null breaks it, as in Spark)
};

bool is_true(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text == "true";
}

// delta.invariants holds {"expression": {"expression": "<SQL>"}} as a JSON string.
std::optional<std::string> invariant_of(const nlohmann::json& field_metadata, const std::string& table_path,
                                        const std::string& column) {
  auto it = field_metadata.find("delta.invariants");
  if (it == field_metadata.end() || it->is_null()) return std::nullopt;
  try {
    nlohmann::json parsed = it->is_string() ? nlohmann::json::parse(it->get<std::string>()) : *it;
    return parsed.at("expression").at("expression").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("table " + table_path + " has an invariant on column " + column + " that cannot be read (" +
                it->dump() + "); fix the table's schema with the writer that set it");
  }
}

void refuse_nested_invariants(const nlohmann::json& type, const std::string& path, const std::string& table_path) {
  if (!type.is_object()) return;
  if (auto fields = type.find("fields"); fields != type.end() && fields->is_array()) {
    for (const auto& field : *fields) {
      std::string name = path + "." + field.value("name", "");
      if (field.contains("metadata") && field["metadata"].contains("delta.invariants"))
        throw Error("table " + table_path + " has an invariant on the nested field " + name +
                    ", which lakestream does not check; it writes only to tables whose invariants are on top-level "
                    "columns. Use Spark for this table, or move the rule to a CHECK constraint");
      refuse_nested_invariants(field.value("type", nlohmann::json()), name, table_path);
    }
  }
  for (const char* key : {"elementType", "keyType", "valueType"})
    if (type.contains(key)) refuse_nested_invariants(type[key], path, table_path);
}

std::vector<Rule> rules_of(const Protocol& protocol, const Metadata& metadata, const std::string& table_path) {
  std::vector<Rule> rules;
  for (const auto& column : metadata.schema) {
    std::string ident = sql::quote_ident(column.name);
    if (!column.nullable) rules.push_back({"NOT NULL column " + column.name, ident + " IS NOT NULL"});
    if (has_feature(protocol, "invariants")) {
      if (auto expression = invariant_of(column.metadata, table_path, column.name))
        rules.push_back({"invariant of column " + column.name, *expression});
      refuse_nested_invariants(column.type, column.name, table_path);
    }
  }
  if (has_feature(protocol, "checkConstraints")) {
    const std::string prefix = "delta.constraints.";
    for (const auto& [key, value] : metadata.configuration)
      if (key.starts_with(prefix)) rules.push_back({"CHECK constraint " + key.substr(prefix.size()), value});
  }
  return rules;
}

// The rows of one added file as readers see them: its columns (by logical name, under column
// mapping too) plus its partition values.
std::string file_rows_sql(const Table& table, const Metadata& metadata, const AddFile& file) {
  Snapshot one_file;  // a table's shape is all a scan reads besides its files
  one_file.table = table;
  one_file.metadata = metadata;
  one_file.files = {file};
  return scan_sql(one_file);
}

}  // namespace

void check_removes_allowed(const Protocol& protocol, const Metadata& metadata, const std::vector<RemoveFile>& removes,
                           const std::string& operation, const std::string& table_path) {
  auto append_only = metadata.configuration.find("delta.appendOnly");
  if (append_only == metadata.configuration.end() || !is_true(append_only->second) ||
      !has_feature(protocol, "appendOnly"))
    return;
  for (const auto& removed : removes)
    if (removed.data_change)
      throw Error("table " + table_path + " is append-only (delta.appendOnly = true), and this " + operation +
                  " would remove " + removed.path +
                  ", changing rows already there; Delta writers must not. Write these results to a table that "
                  "is not append-only, or unset delta.appendOnly on this one if it is meant to change");
}

void check_added_rows(const Protocol& protocol, const Metadata& metadata, const std::vector<AddFile>& adds,
                      const Table& table) {
  const std::string& table_path = table.path();
  std::vector<Rule> rules = rules_of(protocol, metadata, table_path);
  if (rules.empty()) return;
  std::vector<const AddFile*> files;
  for (const auto& file : adds)
    if (file.data_change) files.push_back(&file);
  if (files.empty()) return;
  sql::Database db;
  sql::Connection con(db);
  for (const AddFile* file : files) {
    std::string rows = file_rows_sql(table, metadata, *file);
    for (const auto& rule : rules) {
      std::optional<std::string> broken;
      try {
        broken = con.scalar("SELECT CAST(to_json(t) AS VARCHAR) FROM (" + rows + ") AS t WHERE (" + rule.expression +
                            ") IS NOT TRUE LIMIT 1");
      } catch (const Error& e) {
        throw Error("table " + table_path + " has the " + rule.what + " (" + rule.expression +
                    "), which lakestream cannot evaluate with DuckDB (" + e.what() +
                    "); nothing was committed. Write this rule in SQL both Spark and DuckDB read, or use Spark for "
                    "this table");
      }
      if (broken)
        throw Error("a row breaks the " + rule.what + " (" + rule.expression + ") of table " + table_path + ": " +
                    *broken + "; nothing was committed. Fix the rows (a filter in the stream), or change the rule");
    }
  }
}

}  // namespace lakestream::delta
