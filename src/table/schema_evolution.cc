#include "table/schema_evolution.h"

#include <map>

#include "table/column_mapping.h"
#include "table/schema_columns.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// Types must match exactly: even a widening (int to long) needs Delta's typeWidening table
// feature, which older readers refuse, and a narrowing could not hold the old values.
// Nested fields' column mapping metadata (ids, physical names) is the table's own business.
bool same_type(const nlohmann::json& a, const nlohmann::json& b) {
  return without_column_mapping(a) == without_column_mapping(b);
}

}  // namespace

std::optional<Metadata> evolve_schema(const Metadata& current, const std::vector<Column>& wanted,
                                      const std::vector<std::string>& partition_columns, const std::string& table_path) {
  std::map<std::string, const Column*> wanted_by_name;
  for (const auto& column : wanted) wanted_by_name[column.name] = &column;

  std::vector<std::string> changes;
  for (const auto& column : current.schema) {
    auto it = wanted_by_name.find(column.name);
    if (it == wanted_by_name.end()) {
      changes.push_back("column " + column.name + " was removed");
    } else if (!same_type(it->second->type, column.type)) {
      changes.push_back("column " + column.name + " changed type from " + column.type.dump() + " to " +
                        it->second->type.dump());
    }
  }
  if (partition_columns != current.partition_columns)
    changes.push_back("the partition columns changed from [" + joined(current.partition_columns) + "] to [" +
                      joined(partition_columns) + "]");
  if (!changes.empty()) {
    std::string list;
    for (const auto& change : changes) list += "\n  " + change;
    throw Error("table " + table_path + " cannot take the new schema in place:" + list +
                "\nOnly new columns (added at the end, null in older rows) evolve a table. To migrate, write to a new "
                "table (change the stream's table name) and replay into it with a new checkpoint; or undo the change "
                "in the pipeline file.");
  }

  Metadata evolved = current;
  for (const auto& column : wanted)
    if (!has_column(current.schema, column.name)) evolved.schema.push_back(Column{column.name, column.type, true});
  if (evolved.schema.size() == current.schema.size()) return std::nullopt;
  return evolved;
}

}  // namespace lakestream::delta
