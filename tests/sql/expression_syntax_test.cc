// Where a user's SQL expression stops parsing, in the user's own text: DuckDB's parser reports a
// place in a statement of ours, quoted in a window of one line, which is found again here.
#include "sql/expression_syntax.h"

#include <gtest/gtest.h>

namespace lakestream::sql {
namespace {

std::optional<size_t> offset_of(const std::string& expression) {
  Database db;
  Connection con(db);
  auto mistake = expression_syntax_mistake(con, expression);
  if (!mistake) return std::nullopt;
  EXPECT_EQ(mistake->reason.find("Parser Error"), std::string::npos) << mistake->reason;
  return mistake->offset.value_or(std::string::npos);
}

TEST(ExpressionSyntax, AnExpressionThatParsesHasNoMistake) {
  EXPECT_EQ(offset_of("status = 'placed' and amount > 10"), std::nullopt);
  EXPECT_EQ(offset_of("date(event_time)"), std::nullopt);
}

TEST(ExpressionSyntax, AnEndTooSoonIsAtTheEnd) {
  EXPECT_EQ(offset_of("status == 'placed' and"), 22u);
  EXPECT_EQ(offset_of("amount +"), 8u);
}

TEST(ExpressionSyntax, AMistakeInsideIsAtItsPlaceInTheUsersText) {
  EXPECT_EQ(offset_of("status = = 'x'"), 9u);
  EXPECT_EQ(offset_of("a) or (b"), 1u);  // the user's own parenthesis
  EXPECT_EQ(offset_of("a\n= = b"), 4u);  // on the second line
  // A long expression: DuckDB quotes a window of it around the place, with "..." at the cuts.
  std::string head(90, 'a');
  std::string expression = head + " + " + std::string(50, 'b') + " = = " + std::string(60, 'c');
  EXPECT_EQ(offset_of(expression), head.size() + 3 + 50 + 3);
}

TEST(ExpressionSyntax, ASecondStatementIsAtTheSemicolon) {
  EXPECT_EQ(offset_of("x; drop table y"), 1u);
}

}  // namespace
}  // namespace lakestream::sql
