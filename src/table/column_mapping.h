// Column mapping (PROTOCOL.md, "Column Mapping"): with `delta.columnMapping.mode` = name or id,
// a column's name in the schema (its logical name, which a RENAME COLUMN changes) differs from
// its name in the Parquet files, in partition values and in statistics (its physical name, fixed
// when the column is created: `delta.columnMapping.physicalName` in the field's metadata, nested
// fields too). Readers look the data up by physical name and show it by logical name.
#pragma once

#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "table/delta_table.h"

namespace lakestream::delta {

// True when the table's metadata turns column mapping on (mode name or id).
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

// True in id mode: readers find each top-level column by its Parquet field id
// (`delta.columnMapping.id`), whatever the file calls it (a file converted from Iceberg, or
// rewritten by another engine, may name it otherwise).
bool maps_by_field_id(const Metadata& metadata);

// DuckDB's read_parquet `schema` for id mode: field id -> {name: the physical name, type}, for
// every top-level column but `left_out` (the partition columns). A column no file holds comes
// out as NULL. Nested fields are still found by physical name, which Delta writers write beside
// the field ids. Throws Error when a column has no id.
std::string parquet_schema_by_field_id(const Metadata& metadata, const std::set<std::string>& left_out);

}  // namespace lakestream::delta
