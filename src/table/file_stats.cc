// Every column's count, min, max and nulls of a written file, from its Parquet footer when that is
// exact, else from one aggregate query over the data; the values come back as text and are turned
// into the JSON types Spark expects.
#include "table/file_stats.h"

#include <cmath>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <regex>

#include <nlohmann/json.hpp>

#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "util/cpu_profile.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

constexpr int kStringPrefixLength = 32;  // Spark's dataSkippingStringPrefixLength

enum class StatKind { kNumber, kDecimal, kDate, kTimestamp, kTimestampNtz, kString, kNullsOnly, kNone };

StatKind stat_kind(const nlohmann::json& type) {
  if (is_nested_type(type)) return delta_type_name(type) == "struct" ? StatKind::kNone : StatKind::kNullsOnly;
  std::string name = delta_type_name(type);
  if (name == "long" || name == "integer" || name == "short" || name == "byte" || name == "float" || name == "double")
    return StatKind::kNumber;
  if (decimal_precision(type) > 0) return StatKind::kDecimal;
  if (name == "date") return StatKind::kDate;
  if (name == "timestamp") return StatKind::kTimestamp;
  if (name == "timestamp_ntz") return StatKind::kTimestampNtz;
  if (name == "string") return StatKind::kString;
  return StatKind::kNullsOnly;  // boolean, binary
}

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// A number as DuckDB prints it, as JSON text; nullopt for NaN/infinity, which JSON cannot hold.
// Decimals keep their digits as printed ("25.00"): a JSON double would round wide decimals, and
// a rounded min or max could make readers skip a file that has matching rows.
std::optional<std::string> json_number_text(const std::string& text, bool exact_decimal) {
  static const std::regex decimal_text(R"(-?\d+(\.\d+)?)");
  if (exact_decimal) return std::regex_match(text, decimal_text) ? std::optional<std::string>(text) : std::nullopt;
  try {
    nlohmann::json value = nlohmann::json::parse(text);
    if (!value.is_number()) return std::nullopt;
    if (value.is_number_float() && !std::isfinite(value.get<double>())) return std::nullopt;
    return value.dump();
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

// A JSON object written member by member from JSON texts (so numbers can be exact decimals).
class JsonObjectText {
 public:
  void put(const std::string& key, const std::string& json_text) {
    text_ += (text_.empty() ? "" : ",") + nlohmann::json(key).dump() + ":" + json_text;
  }
  std::string str() const { return "{" + text_ + "}"; }

 private:
  std::string text_;
};

// The select list of the stats query: per column i, nulls_i, min_i and max_i as text, over the
// column named by `value(i, "min"|"max")`, null counts by `nulls(i)`; the row count as `n`.
std::string stats_select(const std::vector<Column>& file_columns, const std::string& rows,
                         const std::function<std::string(size_t)>& nulls,
                         const std::function<std::string(size_t, const char*)>& value) {
  std::string select = "CAST(" + rows + " AS VARCHAR) AS n";
  for (size_t i = 0; i < file_columns.size(); i++) {
    std::string idx = std::to_string(i);
    StatKind kind = stat_kind(file_columns[i].type);
    if (kind == StatKind::kNone) continue;
    select += ", CAST(" + nulls(i) + " AS VARCHAR) AS nulls_" + idx;
    std::string lo = value(i, "min"), hi = value(i, "max");
    switch (kind) {
      case StatKind::kTimestamp:
      case StatKind::kTimestampNtz:
        select += ", CAST(epoch_us(" + lo + ") AS VARCHAR) AS min_" + idx + ", CAST(epoch_us(" + hi + ") AS VARCHAR) AS max_" + idx;
        break;
      case StatKind::kString:
        select += ", left(" + lo + ", " + std::to_string(kStringPrefixLength) + ") AS min_" + idx + ", CASE WHEN length(" +
                  hi + ") <= " + std::to_string(kStringPrefixLength) + " THEN " + hi + " END AS max_" + idx;
        break;
      case StatKind::kNumber:
      case StatKind::kDecimal:
      case StatKind::kDate:
        select += ", CAST(" + lo + " AS VARCHAR) AS min_" + idx + ", CAST(" + hi + " AS VARCHAR) AS max_" + idx;
        break;
      default:
        break;
    }
  }
  return select;
}

// Nested and floating-point columns' stats come from their data: Parquet's footer names a nested
// column's leaves, not the column, and leaves NaN out of min/max.
bool stats_need_data(const Column& column) {
  std::string name = delta_type_name(column.type);
  return is_nested_type(column.type) || name == "float" || name == "double";
}

// The stats from the Parquet footer's row-group statistics (which DuckDB writes for every column),
// without reading the data: nullopt unless they are there and exact for every column.
std::optional<sql::Rows> stats_from_footer(sql::Connection& con, const std::string& parquet_path,
                                           const std::vector<Column>& file_columns) {
  if (file_columns.empty()) return std::nullopt;
  auto of = [&](size_t i) { return "path_in_schema = " + sql::quote_literal(file_columns[i].name); };
  std::string usable;
  for (size_t i = 0; i < file_columns.size(); i++)
    usable += (usable.empty() ? "" : " AND ") + std::string("coalesce(bool_and(stats_null_count IS NOT NULL AND (stats_null_count = "
              "row_group_num_rows OR (stats_min_value IS NOT NULL AND stats_max_value IS NOT NULL AND min_is_exact AND "
              "max_is_exact))) FILTER (WHERE ") + of(i) + "), false)";
  std::string select = stats_select(
      file_columns, "sum(row_group_num_rows) FILTER (WHERE " + of(0) + ")",
      [&](size_t i) { return "sum(stats_null_count) FILTER (WHERE " + of(i) + ")"; },
      [&](size_t i, const char* fn) {
        // CASE, not FILTER: DuckDB would cast the other columns' values too, and fail on them.
        return std::string(fn) + "(CASE WHEN " + of(i) + " THEN CAST(stats_" + fn + "_value AS " +
               duckdb_type_of(file_columns[i].type) + ") END)";
      });
  sql::Rows rows = con.query("SELECT " + usable + " AS usable, " + select + " FROM parquet_metadata(" +
                             sql::quote_literal(parquet_path) + ")");
  if (rows.empty() || rows.text(0, "usable") != "true") return std::nullopt;
  return rows;
}

// The stats query over the file's data for `file_columns` (only those are read).
sql::Rows stats_from_data(sql::Connection& con, const std::string& parquet_path, const std::vector<Column>& file_columns) {
  return con.query("SELECT " +
                   stats_select(
                       file_columns, "count(*)",
                       [&](size_t i) { return "count(*) - count(" + sql::quote_ident(file_columns[i].name) + ")"; },
                       [&](size_t i, const char* fn) { return std::string(fn) + "(" + sql::quote_ident(file_columns[i].name) + ")"; }) +
                   " FROM read_parquet(" + sql::quote_literal(parquet_path) + ", hive_partitioning = false)");
}

}  // namespace

std::string stats_timestamp(int64_t epoch_micros, bool round_up, bool utc_suffix) {
  int64_t millis = round_up ? -floor_div(-epoch_micros, 1000) : floor_div(epoch_micros, 1000);
  std::time_t seconds = static_cast<std::time_t>(floor_div(millis, 1000));
  int ms = static_cast<int>(millis - static_cast<int64_t>(seconds) * 1000);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03d%s", parts.tm_year + 1900, parts.tm_mon + 1,
                parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec, ms, utc_suffix ? "Z" : "");
  return buf;
}

std::string compute_file_stats(sql::Connection& con, const std::string& parquet_path,
                               const std::vector<Column>& file_columns) {
  CpuScope cpu_scope("file_stats");
  // The footer for the columns it describes exactly; the data, read once, for the others (only
  // theirs: the strings, the most costly to read back, are nearly always in the footer).
  std::vector<Column> footer_columns, data_columns;
  for (const auto& column : file_columns) (stats_need_data(column) ? data_columns : footer_columns).push_back(column);
  std::optional<sql::Rows> footer = stats_from_footer(con, parquet_path, footer_columns);
  if (!footer) data_columns = file_columns;
  std::optional<sql::Rows> data;
  if (!data_columns.empty()) data = stats_from_data(con, parquet_path, data_columns);
  // Where each column's stats are: its query, and its position in that query's columns.
  std::map<std::string, std::pair<const sql::Rows*, std::string>> source;
  for (size_t i = 0; i < data_columns.size(); i++) source[data_columns[i].name] = {&*data, std::to_string(i)};
  if (footer)
    for (size_t i = 0; i < footer_columns.size(); i++) source[footer_columns[i].name] = {&*footer, std::to_string(i)};
  const sql::Rows& counted = footer ? *footer : *data;

  JsonObjectText min_values, max_values, null_count;
  for (size_t i = 0; i < file_columns.size(); i++) {
    const std::string& name = file_columns[i].name;
    StatKind kind = stat_kind(file_columns[i].type);
    if (kind == StatKind::kNone) continue;
    const auto& [rows, idx] = source.at(name);
    null_count.put(name, std::to_string(std::stoll(rows->text(0, "nulls_" + idx))));
    if (kind == StatKind::kNullsOnly) continue;
    auto put = [&](JsonObjectText& into, const std::optional<std::string>& text, bool is_max) {
      if (!text) return;  // all values null, or a string too long to bound
      switch (kind) {
        case StatKind::kNumber:
        case StatKind::kDecimal:
          if (auto number = json_number_text(*text, kind == StatKind::kDecimal)) into.put(name, *number);
          break;
        case StatKind::kTimestamp:
        case StatKind::kTimestampNtz:
          into.put(name, nlohmann::json(stats_timestamp(std::stoll(*text), is_max, kind == StatKind::kTimestamp)).dump());
          break;
        default:
          into.put(name, nlohmann::json(*text).dump());
      }
    };
    put(min_values, rows->at(0, "min_" + idx), false);
    put(max_values, rows->at(0, "max_" + idx), true);
  }
  JsonObjectText stats;
  stats.put("numRecords", std::to_string(std::stoll(counted.text(0, "n"))));
  stats.put("minValues", min_values.str());
  stats.put("maxValues", max_values.str());
  stats.put("nullCount", null_count.str());
  return stats.str();
}

}  // namespace lakestream::delta
