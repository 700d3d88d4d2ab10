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

std::string existing_row_stays_sql(const NewestWins& rule) { return "NOT " + newer_sql(rule, "s", "t"); }

std::string newest_per_key_sql(const NewestWins& rule, const std::vector<std::string>& keys, const std::string& rows,
                               sql::Grouping grouping) {
  std::vector<sql::OrderTerm> newest{{sql::quote_ident(rule.order_by), true}};  // a NULL order_by oldest
  for (const auto& tie : rule.ties) newest.push_back({sql::quote_ident(tie), true});
  return sql::row_per_group_sql("*", rows, keys, newest, sql::Pick::Last, grouping);
}

}  // namespace lakestream
