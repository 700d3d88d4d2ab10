// One whole row per group, the first or the last by an order: an aggregate (arg_min / arg_max
// over the row as a struct), not a window, as each DuckDB window operator costs milliseconds
// however few the rows, and a service's batches are many and small. Silver's newest row per key
// and gold's first copy of a dedup key are both this.
#pragma once

#include <string>
#include <vector>

namespace lakestream::sql {

// A term of the order: SQL over the rows' columns, and where its NULL goes (as ORDER BY ... ASC
// NULLS FIRST or NULLS LAST would put it).
struct OrderTerm {
  std::string expression;
  bool nulls_first;
};

enum class Pick { First, Last };

// SQL: of each group of `rows` (SQL that can follow FROM) by `group` (column names), the row that
// `order` (terms over the columns of `rows`, compared in turn, ascending) puts first or last,
// with the columns of `select_list` (a SELECT list over `rows`: "*", or some of its columns).
// NULLs in a group column are a group like any other, as in GROUP BY. Rows tied on the whole
// order: any one of them.
std::string row_per_group_sql(const std::string& select_list, const std::string& rows, const std::vector<std::string>& group,
                              const std::vector<OrderTerm>& order, Pick pick);

}  // namespace lakestream::sql
