// Every column's count, min, max and nulls of a written file: from what DuckDB said of the file as
// it wrote it, or else its Parquet footer, when those are exact; else from one aggregate query over
// the data. The values come as text and are turned into the JSON types Spark expects.
#include "table/file_stats.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <regex>

#include <nlohmann/json.hpp>

#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "util/civil_date.h"
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

// Microseconds since the epoch of a timestamp as DuckDB prints it, "2024-01-01 00:16:39[.5]" with
// "+00" for an instant (DuckDB prints those in UTC); nullopt for any other form (infinity, BC,
// years past 9999), which the data query then reads.
std::optional<int64_t> printed_timestamp_micros(const std::string& text, bool instant) {
  int year, month, day, hour, minute, second, consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d %2d:%2d:%2d%n", &year, &month, &day, &hour, &minute, &second, &consumed) != 6 ||
      consumed != 19 || text[4] != '-' || text[7] != '-')
    return std::nullopt;
  size_t at = 19;
  int64_t micros = 0;
  if (at < text.size() && text[at] == '.') {
    int digits = 0;
    for (at++; at < text.size() && std::isdigit(static_cast<unsigned char>(text[at])); at++, digits++) micros = micros * 10 + (text[at] - '0');
    if (digits == 0 || digits > 6) return std::nullopt;
    for (; digits < 6; digits++) micros *= 10;
  }
  if (text.substr(at) != (instant ? "+00" : "")) return std::nullopt;
  int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return ((days * 24 + hour) * 60 + minute) * 60 * 1000000LL + second * 1000000LL + micros;
}

// The first `n` characters (code points) of UTF-8 text, and whether that is all of it.
std::pair<std::string, bool> first_characters(const std::string& text, size_t n) {
  size_t characters = 0;
  for (size_t i = 0; i < text.size(); i++) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;  // a continuation byte
    if (characters++ == n) return {text.substr(0, i), false};
  }
  return {text, true};
}

// The stats query's row, as stats_select names its columns, from what DuckDB said of the file as
// it wrote it, for the columns it describes exactly; the others go to `left`. Its footer holds the
// same values (and leaves the same ones out: long decimals' bounds, a long string's exact maximum).
sql::Rows stats_from_copy(const sql::CopyStats& copied, const std::vector<Column>& file_columns,
                          std::vector<Column>& described, std::vector<Column>& left) {
  sql::Rows rows;
  std::vector<std::optional<std::string>> row;
  rows.columns.push_back("n");
  row.emplace_back(std::to_string(copied.rows));
  for (const auto& column : file_columns) {
    StatKind kind = stat_kind(column.type);
    if (kind == StatKind::kNone) continue;  // no stats at all (a struct)
    auto it = copied.columns.find(sql::quote_ident(column.name));
    auto stat = [&](const char* name) -> std::optional<std::string> {
      if (it == copied.columns.end()) return std::nullopt;
      auto value = it->second.find(name);
      return value == it->second.end() ? std::nullopt : std::optional<std::string>(value->second);
    };
    std::optional<std::string> nulls = stat("null_count"), lo = stat("min"), hi = stat("max");
    bool usable = nulls && !nulls->empty() && nulls->find_first_not_of("0123456789") == std::string::npos;
    bool all_null = usable && *nulls == std::to_string(copied.rows);
    bool bounded = kind != StatKind::kNullsOnly;
    if (usable && bounded && all_null) lo = hi = std::nullopt;
    if (usable && bounded && !all_null) {
      usable = lo && hi;
      if (usable && (kind == StatKind::kTimestamp || kind == StatKind::kTimestampNtz)) {
        auto from = printed_timestamp_micros(*lo, kind == StatKind::kTimestamp);
        auto to = printed_timestamp_micros(*hi, kind == StatKind::kTimestamp);
        usable = from && to;
        if (usable) lo = std::to_string(*from), hi = std::to_string(*to);
      } else if (usable && kind == StatKind::kString) {
        lo = first_characters(*lo, kStringPrefixLength).first;
        auto [prefix, whole] = first_characters(*hi, kStringPrefixLength);
        if (!whole) hi = std::nullopt;  // too long to bound (and a cut maximum is not exact)
      }
    }
    if (!usable) {
      left.push_back(column);
      continue;
    }
    std::string idx = std::to_string(described.size());
    described.push_back(column);
    rows.columns.push_back("nulls_" + idx);
    row.push_back(nulls);
    if (!bounded) continue;
    rows.columns.push_back("min_" + idx);
    row.push_back(lo);
    rows.columns.push_back("max_" + idx);
    row.push_back(hi);
  }
  rows.rows.push_back(std::move(row));
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
                               const std::vector<Column>& file_columns, const sql::CopyStats* written) {
  CpuScope cpu_scope("file_stats");
  // What DuckDB said as it wrote the file, or else the footer, for the columns they describe
  // exactly; the data, read once, for the others (only theirs: the strings, the most costly to
  // read back, are nearly always described).
  std::vector<Column> footer_columns, data_columns;
  for (const auto& column : file_columns) (stats_need_data(column) ? data_columns : footer_columns).push_back(column);
  std::optional<sql::Rows> footer;
  if (written) {
    std::vector<Column> described;
    footer = stats_from_copy(*written, footer_columns, described, data_columns);
    footer_columns = described;
  } else {
    footer = stats_from_footer(con, parquet_path, footer_columns);
    if (!footer) data_columns = file_columns;
  }
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
