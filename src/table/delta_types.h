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

}  // namespace lakestream::delta
