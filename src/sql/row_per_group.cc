#include "sql/row_per_group.h"

#include "sql/duckdb.h"

namespace lakestream::sql {

std::string row_per_group_sql(const std::string& select_list, const std::string& rows, const std::vector<std::string>& group,
                              const std::vector<OrderTerm>& order, Pick pick, Grouping grouping) {
  std::string by;
  for (const auto& column : group) by += (by.empty() ? "" : ", ") + quote_ident(column);
  if (grouping == Grouping::OneSort) {
    // A group's first row is the one whose previous row (in the sort) is of another group or
    // none; its last, the one whose next is. The group columns first in the sort (any order of
    // NULLs: it only has to keep each group together), then the order's terms.
    std::string sorted = by;
    for (const auto& term : order) sorted += ", " + term.expression + (term.nulls_first ? " ASC NULLS FIRST" : " ASC NULLS LAST");
    const std::string neighbour = pick == Pick::First ? "lag" : "lead";
    return "SELECT * EXCLUDE (__lakestream_edge) FROM (SELECT " + select_list + ", " + neighbour + "(row(" + by +
           ")) OVER (ORDER BY " + sorted + ") IS DISTINCT FROM row(" + by + ") AS __lakestream_edge FROM " + rows +
           ") WHERE __lakestream_edge";
  }
  // The order as a struct, each term after a flag that puts its NULL first or last (structs
  // compare their fields in turn, and a NULL field would otherwise come last either way). The
  // row's alias is also the struct of the whole row: a name no column of a table has.
  std::string order_struct;
  for (const auto& term : order)
    order_struct += (order_struct.empty() ? "" : ", ") + ("(" + term.expression + ") IS " + (term.nulls_first ? "NOT " : "") +
                                                          "NULL, " + term.expression);
  const std::string aggregate = pick == Pick::First ? "arg_min" : "arg_max";
  return "SELECT * EXCLUDE (__lakestream_order) FROM (SELECT unnest(" + aggregate +
         "(__lakestream_row, __lakestream_row.__lakestream_order)) FROM (SELECT " + select_list + ", row(" + order_struct +
         ") AS __lakestream_order FROM " + rows + ") __lakestream_row GROUP BY " + by + ")";
}

}  // namespace lakestream::sql
