// Columns of generated types and values for the table tests: every Delta type lakestream writes,
// with the values that break naive code (NULLs, NaN, -0.0, extreme integers, wide decimals, UUIDs,
// Python isoformat times, path-hostile and non-ASCII strings).
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "table/delta_types.h"

namespace lakestream::delta::fixtures {

using nlohmann::json;

// A column kind: its Delta type and a generator of SQL literals (NULL included) of that type.
struct Kind {
  json type;
  bool partitionable;
  std::function<std::string(std::mt19937&)> value;
};

template <typename T>
inline T pick(std::mt19937& rng, const std::vector<T>& options) {
  return options[std::uniform_int_distribution<size_t>(0, options.size() - 1)(rng)];
}

inline std::string integer_in(std::mt19937& rng, int64_t lo, int64_t hi) {
  return std::to_string(std::uniform_int_distribution<int64_t>(lo, hi)(rng));
}

inline std::vector<Kind> kinds(std::mt19937& rng) {
  int precision = std::uniform_int_distribution<int>(1, 38)(rng);
  int scale = std::uniform_int_distribution<int>(0, precision)(rng);
  auto decimal = [precision, scale](std::mt19937& r) {
    std::string digits;
    for (int i = 0; i < precision; i++) digits += static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(r));
    std::string text = digits.substr(0, precision - scale) + (scale ? "." + digits.substr(precision - scale) : "");
    if (text.starts_with(".")) text = "0" + text;
    return "CAST('" + std::string(r() % 2 ? "-" : "") + text + "' AS DECIMAL(" + std::to_string(precision) + "," +
           std::to_string(scale) + "))";
  };
  return {
      {"long", true, [](std::mt19937& r) { return pick<std::string>(r, {"9223372036854775807", "-9223372036854775807", "0", integer_in(r, -1000, 1000)}); }},
      {"integer", false, [](std::mt19937& r) { return "CAST(" + integer_in(r, INT32_MIN, INT32_MAX) + " AS INTEGER)"; }},
      {"short", false, [](std::mt19937& r) { return "CAST(" + integer_in(r, -32768, 32767) + " AS SMALLINT)"; }},
      {"byte", false, [](std::mt19937& r) { return "CAST(" + integer_in(r, -128, 127) + " AS TINYINT)"; }},
      {"double", false, [](std::mt19937& r) { return pick<std::string>(r, {"'NaN'::DOUBLE", "'-Infinity'::DOUBLE", "-0.0::DOUBLE", "1e308", "0.1", integer_in(r, -9, 9) + ".25"}); }},
      {"float", false, [](std::mt19937& r) { return pick<std::string>(r, {"'NaN'::FLOAT", "1.5::FLOAT", "-3.25e30::FLOAT"}); }},
      {"boolean", true, [](std::mt19937& r) { return pick<std::string>(r, {"true", "false"}); }},
      {"string", true, [](std::mt19937& r) { return pick<std::string>(r, {"''", "'a/b'", "'geo:region'", "'100%'", "'x y=z'", "'é€😀'", "CAST(uuid() AS VARCHAR)", "'null'", "'#?[]{}^\\'", "'line\nbreak'"}); }},
      {"date", true, [](std::mt19937& r) { return "DATE '1970-01-01' + " + integer_in(r, -100000, 2900000); }},
      // Python's isoformat(), with and without an offset and microseconds.
      {"timestamp", true, [](std::mt19937& r) { return pick<std::string>(r, {"TIMESTAMPTZ '2026-10-01T09:00:00.123456+02:00'", "TIMESTAMPTZ '1969-12-31T23:59:59.999999+00:00'", "TIMESTAMPTZ '2026-03-29T01:30:00Z'", "TIMESTAMPTZ '9999-12-31T23:59:59'"}); }},
      // What DuckDB types as plain TIMESTAMP goes in as a Delta timestamp (its wall clock as UTC).
      {delta_type_of_duckdb("TIMESTAMP", "a plain timestamp"), false, [](std::mt19937& r) { return pick<std::string>(r, {"TIMESTAMP '2026-10-01 09:00:00'", "strptime('2026-10-01 09:30', '%Y-%m-%d %H:%M')", "epoch_ms(" + integer_in(r, 0, 4102444800000) + ")"}); }},
      {"decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")", false, decimal},
      {"binary", false, [](std::mt19937& r) { return pick<std::string>(r, {"'\\xAA\\x00'::BLOB", "''::BLOB", "'text'::BLOB"}); }},
      {json{{"type", "array"}, {"elementType", "long"}, {"containsNull", true}}, false,
       [](std::mt19937& r) { return pick<std::string>(r, {"[1, NULL, 3]::BIGINT[]", "[]::BIGINT[]"}); }},
      {json{{"type", "struct"}, {"fields", {{{"name", "a"}, {"type", "string"}, {"nullable", true}, {"metadata", json::object()}},
                                            {{"name", "b"}, {"type", "double"}, {"nullable", true}, {"metadata", json::object()}}}}},
       false, [](std::mt19937& r) { return pick<std::string>(r, {"{'a': 'x', 'b': 1.5}", "{'a': NULL, 'b': 'NaN'::DOUBLE}"}); }},
  };
}

// `rows` rows of the columns, each value NULL one time in eight, as one SELECT.
inline std::string rows_sql(std::mt19937& rng, const std::vector<Column>& columns, const std::vector<const Kind*>& of, int rows) {
  std::string sql;
  for (int r = 0; r < rows; r++) {
    std::string row;
    for (size_t c = 0; c < columns.size(); c++)
      row += (c ? ", " : "") + (rng() % 8 == 0 ? std::string("NULL") : of[c]->value(rng)) + " AS " +
             sql::quote_ident(columns[c].name);
    sql += (r ? " UNION ALL SELECT " : "SELECT ") + row;
  }
  return sql;
}

}  // namespace lakestream::delta::fixtures
