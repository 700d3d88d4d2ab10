#include "sql/expression_syntax.h"

#include <vector>

namespace lakestream::sql {
namespace {

constexpr const char* kPrefix = "SELECT ";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// The offset in `statement` that DuckDB's caret points at. Its message quotes one line of the
// statement ("LINE 2: ..."), cut to a window around the place with "..." at a cut end, and puts a
// '^' under the place on the next line: the quoted text is found in the statement again.
std::optional<size_t> caret_offset(const std::vector<std::string>& message, const std::string& statement) {
  for (size_t i = 0; i + 1 < message.size(); ++i) {
    const std::string& quoted = message[i];
    if (quoted.rfind("LINE ", 0) != 0) continue;
    size_t colon = quoted.find(": ");
    size_t caret = message[i + 1].find('^');
    if (colon == std::string::npos || caret == std::string::npos || caret < colon + 2) return std::nullopt;
    std::string snippet = quoted.substr(colon + 2);
    size_t in_snippet = caret - (colon + 2);
    if (snippet.rfind("...", 0) == 0) {
      snippet.erase(0, 3);
      if (in_snippet < 3) return std::nullopt;
      in_snippet -= 3;
    }
    if (snippet.size() >= 3 && snippet.compare(snippet.size() - 3, 3, "...") == 0) snippet.resize(snippet.size() - 3);
    size_t found = statement.find(snippet);
    if (found == std::string::npos) return std::nullopt;
    return found + in_snippet;
  }
  return std::nullopt;
}

}  // namespace

std::optional<SyntaxMistake> expression_syntax_mistake(Connection& con, const std::string& expression) {
  const std::string statement = kPrefix + expression;
  duckdb_extracted_statements extracted = nullptr;
  idx_t count = duckdb_extract_statements(con.handle(), statement.c_str(), &extracted);
  std::optional<SyntaxMistake> mistake;
  if (count == 0) {
    const char* error = duckdb_extract_statements_error(extracted);
    std::vector<std::string> message = lines_of(error ? error : "syntax error");
    SyntaxMistake found;
    found.reason = message.front();
    const std::string parser = "Parser Error: ";
    if (found.reason.rfind(parser, 0) == 0) found.reason.erase(0, parser.size());
    const size_t start = statement.size() - expression.size();
    auto offset = caret_offset(message, statement);
    if (found.reason.find("at end of input") != std::string::npos) found.offset = expression.size();
    else if (offset && *offset >= start) found.offset = *offset - start;
    mistake = found;
  } else if (count > 1) {
    mistake = SyntaxMistake{"a ';' ends it and another statement follows", expression.find(';')};
  }
  duckdb_destroy_extracted(&extracted);
  return mistake;
}

}  // namespace lakestream::sql
