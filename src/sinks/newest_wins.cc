#include "sinks/newest_wins.h"

#include "sql/duckdb.h"

namespace lakestream {

std::string newer_sql(const NewestWins& rule, const std::string& a, const std::string& b) {
  std::string ob = sql::quote_ident(rule.order_by);
  std::string x = a + "." + ob, y = b + "." + ob;
  std::string result = "coalesce(" + x + " > " + y + ", " + x + " IS NOT NULL AND " + y + " IS NULL)";
  std::string a_ties, b_ties;
  for (const auto& tie : rule.ties) {
    a_ties += (a_ties.empty() ? "" : ", ") + a + "." + sql::quote_ident(tie) + "::BIGINT";
    b_ties += (b_ties.empty() ? "" : ", ") + b + "." + sql::quote_ident(tie) + "::BIGINT";
  }
  if (!a_ties.empty())
    result = "(" + result + " OR (" + x + " IS NOT DISTINCT FROM " + y + " AND coalesce([" + a_ties + "] > [" + b_ties + "], false)))";
  return result;
}

std::string existing_row_stays_sql(const NewestWins& rule) {
  std::string same_event = "true";
  for (const auto& c : rule.event_columns)
    same_event += " AND s." + sql::quote_ident(c) + " IS NOT DISTINCT FROM t." + sql::quote_ident(c);
  return "NOT " + newer_sql(rule, "s", "t") + " OR (" + same_event + ")";
}

}  // namespace lakestream
