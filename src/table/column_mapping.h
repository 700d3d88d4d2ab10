// Column mapping (PROTOCOL.md, "Column Mapping"): with `delta.columnMapping.mode` = name or id,
// a column's name in the schema (its logical name, which a RENAME COLUMN changes) differs from
// its name in the Parquet files, in partition values and in statistics (its physical name, fixed
// when the column is created: `delta.columnMapping.physicalName` in the field's metadata, nested
// fields too). Readers look the data up by physical name and show it by logical name; writers
// (write_data_file) store each column under its physical name with its id as the Parquet field
// id, and key statistics and partition values by physical name.
#pragma once

#include <map>
#include <optional>
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

// The metadata a commit gives the table when it asks for `wanted`: columns new to the table (not
// in `previous` by name; all of them for a new table) lose any column mapping metadata they
// carry (copied from the table they were read from); then, under column mapping, every field
// (nested struct fields too) without an id and a physical name gets the next id and a physical
// name `col-<uuid>`, and delta.columnMapping.maxColumnId is raised to the largest id. Turning
// name mode on for an existing table keeps each column's name as its physical name, since its
// files hold it so (as Delta does). Throws Error for the changes of mode the protocol does not
// allow in place: to id mode on an existing table, or from one mode to another.
Metadata with_column_mapping(const Metadata& wanted, const std::optional<Metadata>& previous,
                             const std::string& table_path);

// `type` without column mapping's field metadata at any depth: what two schemas' types are
// compared by, whatever tables they were read from.
nlohmann::json without_column_mapping(const nlohmann::json& type);

// The reverse of logical_value_sql: `logical_sql`, a value of `type` under its logical field
// names, as a value of physical_type(type), for writing it to a data file.
std::string physical_value_sql(const Metadata& metadata, const std::string& logical_sql, const nlohmann::json& type);

// The Parquet field ids of `columns` (top-level columns of the table, written under their
// physical names) as DuckDB's COPY option `FIELD_IDS {...}`, nested struct fields included;
// empty without column mapping or when no column has an id.
std::string field_ids_option(const Metadata& metadata, const std::vector<Column>& columns);

// A file's partition values keyed by column name (the log keys them by physical name under
// column mapping), and back.
std::map<std::string, std::optional<std::string>> partition_values_by_name(
    const Metadata& metadata, const std::map<std::string, std::optional<std::string>>& stored);
std::map<std::string, std::optional<std::string>> partition_values_by_physical_name(
    const Metadata& metadata, const std::map<std::string, std::optional<std::string>>& by_name);

}  // namespace lakestream::delta
