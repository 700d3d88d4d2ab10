#include "streams/expression_check.h"

#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "pipeline/change_columns.h"
#include "sql/expression_syntax.h"
#include "streams/ingest_stream.h"
#include "table/parquet_file.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

namespace {

// DuckDB's message without its quote of our statement (after a blank line, "LINE 1: ...").
std::string reason_of(const Error& e) {
  std::string text = e.what();
  const std::string prefix = "SQL failed: ";
  if (text.rfind(prefix, 0) == 0) text = text.substr(prefix.size());
  text = text.substr(0, text.find("\n\nLINE "));
  auto note = text.find(" (--verbose shows the statement)");
  if (note != std::string::npos) text.erase(note);
  auto in = text.find("\n  in: ");
  if (in != std::string::npos) text.erase(in);
  return text;
}

// Where a syntax mistake is, in the user's own expression: what comes there, or the last word
// before an end that came too soon.
std::string place_of(const std::string& expression, const sql::SyntaxMistake& mistake) {
  if (!mistake.offset) return mistake.reason;
  size_t at = *mistake.offset;
  if (at >= expression.size()) {
    std::string before = expression;
    while (!before.empty() && std::isspace(static_cast<unsigned char>(before.back()))) before.pop_back();
    size_t word = before.find_last_of(" \t\n");
    return "it ends too soon, after '" + before.substr(word == std::string::npos ? 0 : word + 1) + "'";
  }
  if (expression[at] == ';') return "a ';' at character " + std::to_string(at + 1) + " ends it and more follows";
  std::string rest = expression.substr(at, 24);
  if (at + rest.size() < expression.size()) rest += "...";
  return "a syntax error at character " + std::to_string(at + 1) + ", where it reads \"" + rest + "\"";
}

// One SQL expression of the file, where it is.
struct Expression {
  const Stream* stream;
  std::string key;         // under the stream: "filter", "derived.dt", "aggregates.revenue"
  std::string text;        // as the user wrote it
  std::string to_parse;    // the expression alone (an aggregate's argument)
};

class ExpressionCheck {
 public:
  ExpressionCheck(PipelineReading& reading, sql::Connection& con) : reading_(reading), con_(con) {}

  void run() {
    const Pipeline& pipeline = reading_.pipeline;
    for (const auto& stream : pipeline.streams)
      for (const auto& expression : expressions_of(stream)) check_syntax(expression);
    con_.exec("CREATE SCHEMA IF NOT EXISTS lakestream_expression_check");
    for (const Stream* stream : pipeline.in_dependency_order()) {
      // What it reads has columns the file's mistakes leave unknown: whatever binds or not there
      // would follow from those mistakes (its expressions are parsed above).
      const std::string& input = stream->kind == StreamKind::Ingest ? stream->table : stream->from;
      if (stream->table.empty() || input.empty() || reading_.unsure_tables.count(input)) continue;
      switch (stream->kind) {
        case StreamKind::Ingest: check_ingest(*stream); break;
        case StreamKind::Latest: check_latest(*stream); break;
        case StreamKind::Window: check_window(*stream); break;
      }
    }
    con_.exec("DROP SCHEMA lakestream_expression_check CASCADE");
  }

 private:
  static std::vector<Expression> expressions_of(const Stream& stream) {
    std::vector<Expression> all;
    for (const auto& [name, expression] : stream.derived) all.push_back({&stream, "derived." + name, expression, expression});
    if (!stream.filter.empty()) all.push_back({&stream, "filter", stream.filter, stream.filter});
    if (!stream.deletes.empty()) all.push_back({&stream, "deletes", stream.deletes, stream.deletes});
    for (const auto& aggregate : stream.aggregates) {
      if (aggregate.argument == "*") continue;
      all.push_back({&stream, "aggregates." + aggregate.name, aggregate.function + "(" + aggregate.argument + ")",
                     aggregate.argument});
    }
    return all;
  }

  std::string key_of(const Expression& expression) const {
    return "streams." + expression.stream->name + "." + expression.key;  // names are plain identifiers
  }

  void tell(const Expression& expression, const std::string& what) {
    const Stream& stream = *expression.stream;
    auto line = stream.sql_lines.find(expression.key);
    int at = line == stream.sql_lines.end() ? stream.line : line->second;
    reading_.mistakes.add(key_of(expression), at,
                          reading_.mistakes.file() + ":" + std::to_string(at) + ": " + key_of(expression) + ": " + what);
  }

  // The parser alone, over the user's text: its mistakes are told whatever the stream reads.
  void check_syntax(const Expression& expression) {
    auto mistake = sql::expression_syntax_mistake(con_, expression.to_parse);
    if (!mistake) return;
    tell(expression, "'" + expression.text + "' is not a SQL expression: " + place_of(expression.to_parse, *mistake));
  }

  std::string table_sql(const std::string& table) const {
    return "lakestream_expression_check." + sql::quote_ident(table);
  }

  // Binds `select` (returns nothing: LIMIT 0); on failure tells the mistake. An expression that
  // does not parse is told already, and not bound.
  // `over_table` is the table it reads ("" for a source).
  bool binds(const Stream& stream, const std::string& key, const std::string& expression, const std::string& over,
             const std::string& over_table, const std::string& select) {
    Expression where{&stream, key, expression, expression};
    if (reading_.mistakes.under(key_of(where))) return false;
    try {
      con_.query(select);
      return true;
    } catch (const Error& e) {
      std::string reason = reason_of(e);
      for (const auto& missing : missing_columns_[over_table])  // a derived column that is wrong itself
        if (reason.find("Referenced column \"" + missing + "\" not found") != std::string::npos) return false;
      tell(where, "'" + expression + "' does not run over the columns of " + over + ": " + reason);
      return false;
    }
  }

  void check_ingest(const Stream& stream) {
    const Source* source = reading_.pipeline.find_source(stream.source);
    // An Avro source's columns are its writer schemas' fields, known when the stream runs.
    if (!source || source->format == SourceFormat::Avro) return;
    std::string columns;
    for (const auto& column : bronze_columns(*source))
      columns += (columns.empty() ? "" : ", ") + sql::quote_ident(column.name) + " " + delta::duckdb_type_of(column.type);
    std::string input = table_sql(stream.table + "__events");
    con_.exec("CREATE TABLE " + input + " (" + columns + ")");
    // Bronze takes shape with the derived columns that bind, so the streams reading it are
    // checked too; a column that did not bind is told already, and not again where it is read.
    std::string derived;
    for (const auto& [name, expression] : stream.derived) {
      if (binds(stream, "derived." + name, expression, "source " + source->name, "",
                "SELECT (" + expression + ") FROM " + input + " LIMIT 0"))
        derived += ", (" + expression + ") AS " + sql::quote_ident(name);
      else
        missing_columns_[stream.table].insert(name);
    }
    con_.exec("CREATE TABLE " + table_sql(stream.table) + " AS SELECT *" + derived + " FROM " + input + " LIMIT 0");
    shaped_.insert(stream.table);
  }

  // The relation of the rows `stream` reads (its `from` is shaped): `from` itself, or with
  // read = "changes" `from` with the change columns after its own.
  std::string input_of(const Stream& stream) {
    if (stream.read != SourceRead::Changes) return table_sql(stream.from);
    std::string input = table_sql(stream.name + "__changes");
    std::string added;
    for (const auto& column : change_columns())
      added += ", NULL::" + delta::duckdb_type_of(column.delta_type()) + " AS " + sql::quote_ident(column.name);
    con_.exec("CREATE TABLE " + input + " AS SELECT *" + added + " FROM " + table_sql(stream.from) + " LIMIT 0");
    return input;
  }

  void check_window(const Stream& stream) {
    if (!shaped_.count(stream.from)) return;  // its input did not take shape: told already
    std::string from = input_of(stream);
    if (!stream.filter.empty())
      binds(stream, "filter", stream.filter, stream.from, stream.from, "SELECT * FROM " + from + " WHERE (" + stream.filter + ") LIMIT 0");
    for (const auto& aggregate : stream.aggregates) {
      if (aggregate.argument == "*") continue;
      binds(stream, "aggregates." + aggregate.name, aggregate.function + "(" + aggregate.argument + ")", stream.from,
            stream.from, "SELECT " + aggregate.function + "(" + aggregate.argument + ") FROM " + from + " LIMIT 0");
    }
  }

  void check_latest(const Stream& stream) {
    if (!shaped_.count(stream.from)) return;
    std::string input = input_of(stream);
    if (!stream.deletes.empty())
      binds(stream, "deletes", stream.deletes, stream.from, stream.from, "SELECT * FROM " + input + " WHERE (" + stream.deletes + ") LIMIT 0");
    // Its table has the columns it reads.
    con_.exec("CREATE TABLE " + table_sql(stream.table) + " AS SELECT * FROM " + input + " LIMIT 0");
    shaped_.insert(stream.table);
    missing_columns_[stream.table] = missing_columns_[stream.from];
  }

  PipelineReading& reading_;
  sql::Connection& con_;
  std::set<std::string> shaped_;  // tables created in the scratch schema
  std::map<std::string, std::set<std::string>> missing_columns_;  // derived columns of a table that did not bind
};

}  // namespace

void check_stream_expressions(PipelineReading& reading, sql::Connection& con) { ExpressionCheck(reading, con).run(); }

void check_stream_expressions_once(PipelineReading& reading) {
  const Pipeline& pipeline = reading.pipeline;
  std::string marker = join_path(pipeline.checkpoints_dir, ".expressions-checked");
  std::string checked = std::to_string(std::hash<std::string>()(read_file(pipeline.path))) + "\n";
  bool whole = reading.mistakes.empty();  // else the checkpoints folder may be wrong too
  if (whole && path_exists(marker) && read_file(marker) == checked) return;
  {
    sql::Database db;
    sql::Connection con(db);
    check_stream_expressions(reading, con);
  }
  if (!reading.mistakes.empty()) return;
  make_dirs(pipeline.checkpoints_dir, 0700);  // private, as every file of the checkpoints
  write_file_atomic(marker, checked, 0600);
}

}  // namespace lakestream
