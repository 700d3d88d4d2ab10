// Column mapping (PROTOCOL.md, "Column Mapping"): with `delta.columnMapping.mode` = name or id,
// a column's name in the schema (its logical name, which a RENAME COLUMN changes) differs from
// its name in the Parquet files, in partition values and in statistics (its physical name, fixed
// when the column is created: `delta.columnMapping.physicalName` in the field's metadata, nested
// fields too). Readers look the data up by physical name and show it by logical name.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "table/delta_table.h"

namespace lakestream::delta {

// True when the table's metadata turns column mapping on (mode name or id; reads refuse id).
bool uses_column_mapping(const Metadata& metadata);

// The name of `column` in data files, partition values and statistics: its physical name under
// column mapping, else its name.
std::string physical_name(const Metadata& metadata, const Column& column);

// The Delta type as the data files hold it: nested struct fields renamed to their physical names
// (the type itself when the table has no column mapping).
nlohmann::json physical_type(const Metadata& metadata, const nlohmann::json& type);

// A SQL expression turning `physical_sql` (a value of physical_type(type)) into one of `type`,
// with the logical field names at every depth (struct fields, list elements, map values).
std::string logical_value_sql(const Metadata& metadata, const std::string& physical_sql, const nlohmann::json& type);

}  // namespace lakestream::delta
