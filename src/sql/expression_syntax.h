// Whether a piece of SQL a user wrote (a filter, a derived column) parses as one expression, and
// where in the user's own text it stops parsing: DuckDB's parser sees it inside a statement of
// ours, so its position and its "at or near" refer to that statement, not to what the user wrote.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "sql/duckdb.h"

namespace lakestream::sql {

struct SyntaxMistake {
  // The parser's reason, without its "Parser Error: " and its quote of the statement.
  std::string reason;
  // Where in the expression parsing stopped, when known: the expression's size when it ended
  // too soon, the ';' when a statement follows it.
  std::optional<size_t> offset;
};

// nullopt when `expression` parses as a single SQL expression; nothing is bound or run.
std::optional<SyntaxMistake> expression_syntax_mistake(Connection& con, const std::string& expression);

}  // namespace lakestream::sql
