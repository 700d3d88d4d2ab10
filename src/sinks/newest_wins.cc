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

std::string newest_per_key_sql(const NewestWins& rule, const std::vector<std::string>& keys, const std::string& rows,
                               sql::Grouping grouping) {
  std::string ob = sql::quote_ident(rule.order_by);
  std::string order = ob + " ASC NULLS FIRST";
  // Oldest first, a NULL order_by (or tie) oldest: the key's row is the last of its starts.
  std::vector<sql::OrderTerm> newest{{ob, true}};
  for (const auto& tie : rule.ties) {
    order += ", " + sql::quote_ident(tie);
    newest.push_back({sql::quote_ident(tie), true});
  }
  std::string per_key, event;
  for (const auto& k : keys) per_key += (per_key.empty() ? "" : ", ") + sql::quote_ident(k);
  for (const auto& c : rule.event_columns) event += (event.empty() ? "" : ", ") + sql::quote_ident(c);
  // A row starts a run when its event differs from the one before it of its key; the key's row
  // is the newest start: the first copy of its newest event. Hashed: a window partitioned by the
  // key, then an aggregate. In one sort (a batch too small to pay for hash tables and window
  // partitions: sql/row_per_group.h), the keys come first in the order (a NULL key is one group,
  // after the others) and in the compared row, so that a key's first row starts a run whatever
  // came before.
  std::string over = "PARTITION BY " + per_key + " ORDER BY " + order;
  std::string compared = event;
  if (grouping == sql::Grouping::OneSort) {
    over = "ORDER BY " + per_key + ", " + order;
    compared = per_key + ", " + event;
  }
  const std::string starts = "(SELECT * EXCLUDE (__lakestream_starts) FROM (SELECT *, lag(row(" + compared + ")) OVER (" +
                             over + ") IS DISTINCT FROM row(" + compared + ") AS __lakestream_starts FROM " + rows +
                             ") WHERE __lakestream_starts)";
  return sql::row_per_group_sql("*", starts, keys, newest, sql::Pick::Last, grouping);
}

}  // namespace lakestream
