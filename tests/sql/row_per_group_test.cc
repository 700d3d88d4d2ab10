// One row per group by an order (sql::row_per_group_sql), against a model in C++ that sorts each
// group: generated rows with NULLs in the group columns and in every order term, terms whose NULL
// goes first and terms whose NULL goes last, the first and the last pick, many ties, columns
// named like SQL words, and both groupings (hashed and one sort).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>

#include "sql/duckdb.h"
#include "sql/row_per_group.h"

namespace lakestream::sql {
namespace {

struct Row {
  std::optional<int> g1;
  std::optional<std::string> g2;
  std::optional<int> a, b;  // the order's terms
  int id;                   // which row it is
};

// How ORDER BY a NULLS FIRST, b NULLS LAST (or with a and b's NULLs the other way) compares.
int compare(const std::optional<int>& x, const std::optional<int>& y, bool nulls_first) {
  if (!x && !y) return 0;
  if (!x) return nulls_first ? -1 : 1;
  if (!y) return nulls_first ? 1 : -1;
  return *x < *y ? -1 : (*x > *y ? 1 : 0);
}

std::string number_or_null(const std::optional<int>& v) { return v ? std::to_string(*v) : "NULL"; }

TEST(RowPerGroup, IsTheFirstOrLastRowOfEachGroupAsSortingSays) {
  std::mt19937 random(7);
  for (int round = 0; round < 32; round++) {
    const bool a_nulls_first = round % 2 == 0, b_nulls_first = round % 4 < 2;
    const Pick pick = round % 8 < 4 ? Pick::First : Pick::Last;
    const Grouping grouping = round < 16 ? Grouping::Hashed : Grouping::OneSort;
    const int n = 1 + static_cast<int>(random() % 400);
    std::vector<Row> rows;
    std::string values;
    for (int i = 0; i < n; i++) {
      auto maybe = [&](int range) -> std::optional<int> {
        if (random() % 6 == 0) return std::nullopt;
        return static_cast<int>(random() % range);
      };
      Row r{maybe(5), random() % 5 ? std::optional<std::string>(std::string(1, static_cast<char>('p' + random() % 3))) : std::nullopt,
            maybe(4), maybe(50), i};
      rows.push_back(r);
      values += (values.empty() ? "(" : ", (") + number_or_null(r.g1) + ", " + (r.g2 ? "'" + *r.g2 + "'" : "NULL") + ", " +
                number_or_null(r.a) + ", " + number_or_null(r.b) + ", " + std::to_string(i) + ")";
    }
    Database db;
    Connection con(db);
    con.exec("CREATE TABLE input AS SELECT * FROM (VALUES " + values + ") t(\"group\", \"the key\", \"order\", b, id)");
    Rows got = con.query(row_per_group_sql("\"group\", \"the key\", id", "input", {"group", "the key"},
                                           {{"\"order\"", a_nulls_first}, {"b", b_nulls_first}}, pick, grouping));
    // The model: each group sorted by the order; the chosen row must be one of the first (or last) ties.
    std::map<std::pair<std::optional<int>, std::optional<std::string>>, std::vector<Row>> groups;
    for (const auto& r : rows) groups[{r.g1, r.g2}].push_back(r);
    auto order = [&](const Row& x, const Row& y) {
      int c = compare(x.a, y.a, a_nulls_first);
      return c != 0 ? c : compare(x.b, y.b, b_nulls_first);
    };
    ASSERT_EQ(got.size(), groups.size()) << "round " << round;
    ASSERT_EQ(got.columns, (std::vector<std::string>{"group", "the key", "id"}));
    for (size_t i = 0; i < got.size(); i++) {
      const Row& chosen = rows.at(std::stoul(*got.at(i, "id")));
      const auto& group = groups.at({chosen.g1, chosen.g2});
      EXPECT_EQ(got.at(i, "group"), chosen.g1 ? std::optional(std::to_string(*chosen.g1)) : std::nullopt);
      for (const auto& other : group) {
        int c = order(chosen, other);
        if (pick == Pick::First)
          EXPECT_LE(c, 0) << "round " << round << ": row " << chosen.id << " is after row " << other.id;
        else
          EXPECT_GE(c, 0) << "round " << round << ": row " << chosen.id << " is before row " << other.id;
      }
    }
  }
}

}  // namespace
}  // namespace lakestream::sql
