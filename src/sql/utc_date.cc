#include "sql/utc_date.h"

#include <regex>
#include <strings.h>

#include "sql/duckdb.h"

namespace lakestream::sql {

namespace {

// A column name as SQL spells it: bare, or double-quoted with "" for a quote.
const char* const kIdentifier = R"(([A-Za-z_][A-Za-z0-9_]*|"(?:[^"]|"")+"))";

std::string unquoted(const std::string& identifier) {
  if (identifier.empty() || identifier.front() != '"') return identifier;
  std::string name;
  for (size_t i = 1; i + 1 < identifier.size(); i++) {
    name += identifier[i];
    if (identifier[i] == '"') i++;  // "" is one quote
  }
  return name;
}

}  // namespace

std::string utc_date_without_icu(const std::string& expression, const std::vector<std::string>& instant_columns) {
  static const std::regex forms[] = {
      std::regex(std::string(R"(^\s*date\s*\(\s*)") + kIdentifier + R"(\s*\)\s*$)", std::regex::icase),
      std::regex(std::string(R"(^\s*cast\s*\(\s*)") + kIdentifier + R"(\s+as\s+date\s*\)\s*$)", std::regex::icase),
      std::regex(std::string(R"(^\s*)") + kIdentifier + R"(\s*::\s*date\s*$)", std::regex::icase)};
  std::smatch match;
  for (const auto& form : forms) {
    if (!std::regex_match(expression, match, form)) continue;
    std::string name = unquoted(match[1].str());
    for (const auto& column : instant_columns) {
      if (::strcasecmp(column.c_str(), name.c_str()) != 0) continue;
      std::string c = quote_ident(column);
      // make_timestamp(epoch_us(c)) is the instant as a UTC wall-clock TIMESTAMP, whose cast to
      // DATE is arithmetic; +-infinity have no epoch value and keep DuckDB's own date().
      return "CASE WHEN isfinite(" + c + ") THEN CAST(make_timestamp(epoch_us(" + c + ")) AS DATE) ELSE date(" + c +
             ") END";
    }
    return expression;
  }
  return expression;
}

}  // namespace lakestream::sql
