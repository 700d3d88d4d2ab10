// One aggregate query over the written file gives every column's count, min, max and nulls; the
// values come back as text and are turned into the JSON types Spark expects.
#include "table/file_stats.h"

#include <cmath>
#include <ctime>
#include <regex>

#include <nlohmann/json.hpp>

#include "table/delta_types.h"
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
  // Every aggregate is cast to VARCHAR: the result reader renders text only.
  std::string select = "CAST(count(*) AS VARCHAR) AS n";
  for (size_t i = 0; i < file_columns.size(); i++) {
    std::string c = sql::quote_ident(file_columns[i].name), idx = std::to_string(i);
    StatKind kind = stat_kind(file_columns[i].type);
    if (kind == StatKind::kNone) continue;
    select += ", CAST(count(*) - count(" + c + ") AS VARCHAR) AS nulls_" + idx;
    switch (kind) {
      case StatKind::kTimestamp:
      case StatKind::kTimestampNtz:
        select += ", CAST(epoch_us(min(" + c + ")) AS VARCHAR) AS min_" + idx + ", CAST(epoch_us(max(" + c +
                  ")) AS VARCHAR) AS max_" + idx;
        break;
      case StatKind::kString:
        select += ", left(min(" + c + "), " + std::to_string(kStringPrefixLength) + ") AS min_" + idx +
                  ", CASE WHEN length(max(" + c + ")) <= " + std::to_string(kStringPrefixLength) + " THEN max(" + c +
                  ") END AS max_" + idx;
        break;
      case StatKind::kNumber:
      case StatKind::kDecimal:
      case StatKind::kDate:
        select += ", CAST(min(" + c + ") AS VARCHAR) AS min_" + idx + ", CAST(max(" + c + ") AS VARCHAR) AS max_" + idx;
        break;
      default:
        break;
    }
  }
  sql::Rows rows = con.query("SELECT " + select + " FROM read_parquet(" + sql::quote_literal(parquet_path) +
                             ", hive_partitioning = false)");

  JsonObjectText min_values, max_values, null_count;
  for (size_t i = 0; i < file_columns.size(); i++) {
    const std::string& name = file_columns[i].name;
    std::string idx = std::to_string(i);
    StatKind kind = stat_kind(file_columns[i].type);
    if (kind == StatKind::kNone) continue;
    null_count.put(name, std::to_string(std::stoll(rows.text(0, "nulls_" + idx))));
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
    put(min_values, rows.at(0, "min_" + idx), false);
    put(max_values, rows.at(0, "max_" + idx), true);
  }
  JsonObjectText stats;
  stats.put("numRecords", std::to_string(std::stoll(rows.text(0, "n"))));
  stats.put("minValues", min_values.str());
  stats.put("maxValues", max_values.str());
  stats.put("nullCount", null_count.str());
  return stats.str();
}

}  // namespace lakestream::delta
