// Delta schema types as DuckDB sees them: the type names, which types are primitive, and how a
// partition value (always a string in the log) becomes a typed SQL constant.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace lakestream::delta {

// "long", "decimal(18,2)", ... for primitives; "struct", "array" or "map" for nested types.
std::string delta_type_name(const nlohmann::json& delta_type);

bool is_nested_type(const nlohmann::json& delta_type);

// The decimal precision of "decimal(p,s)", or 0 for other types.
int decimal_precision(const nlohmann::json& delta_type);

// A SQL expression for a partition value of that type, e.g. CAST('2026-01-01' AS DATE); a null
// value gives a typed NULL. Timestamps without an offset are read as UTC, as Spark writes them.
std::string partition_value_sql(const std::optional<std::string>& value, const nlohmann::json& delta_type);

// The inverse: a SQL expression giving the partition-value string Delta keeps in the log for the
// value of `column_sql` (dates as 2026-01-01, timestamps as "2026-01-01 09:00:00.000000" in UTC,
// as Spark writes them; numbers and booleans as text; NULL and '' as NULL, as Spark treats both).
std::string partition_text_sql(const std::string& column_sql, const nlohmann::json& delta_type);

// The Delta type of a DuckDB column type (as DESCRIBE prints it), for columns whose type the SQL
// that computes them decides (derived columns, window aggregates). Throws Error naming `what`
// ("a window aggregate") for types a Delta table cannot hold.
nlohmann::json delta_type_of_duckdb(const std::string& duckdb_type, const std::string& what);

}  // namespace lakestream::delta
