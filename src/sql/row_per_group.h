// One whole row per group, the first or the last by an order. Silver's newest row per key and
// gold's first copy of a dedup key are both this.
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

// How the rows are grouped. Hashed: an aggregate (arg_min / arg_max over the row as a struct),
// or a window partitioned by the group, which DuckDB runs on every core: for many rows. One
// sort: a window over all the rows sorted by group and order, each group's edge row kept: on one
// thread, but for a few hundred rows in about half the time (DuckDB's hash tables and window
// partitions cost milliseconds however few the rows; measured 5 to 8 ms against 12 to 16 for
// gold's first copies of 130 rows), and a service's batches are many and small. The same rows
// either way.
enum class Grouping { Hashed, OneSort };

// The grouping for `rows` rows: one sort below kRowsWorthHashing.
constexpr int64_t kRowsWorthHashing = 20'000;
constexpr Grouping grouping_for(int64_t rows) { return rows >= kRowsWorthHashing ? Grouping::Hashed : Grouping::OneSort; }

// SQL: of each group of `rows` (SQL that can follow FROM) by `group` (column names), the row that
// `order` (terms over the columns of `rows`, compared in turn, ascending) puts first or last,
// with the columns of `select_list` (a SELECT list over `rows`: "*", or some of its columns).
// NULLs in a group column are a group like any other, as in GROUP BY. Rows tied on the whole
// order: any one of them.
std::string row_per_group_sql(const std::string& select_list, const std::string& rows, const std::vector<std::string>& group,
                              const std::vector<OrderTerm>& order, Pick pick, Grouping grouping);

}  // namespace lakestream::sql
