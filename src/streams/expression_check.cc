#include "streams/expression_check.h"

#include <filesystem>
#include <functional>
#include <set>

#include "streams/ingest_stream.h"
#include "table/parquet_file.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

namespace {

namespace fs = std::filesystem;

// The pipeline file as a user would name it: relative to the current folder when inside it.
std::string shown_path(const std::string& path) {
  std::error_code ec;
  fs::path relative = fs::relative(path, fs::current_path(ec), ec);
  if (ec || relative.empty() || relative.string().rfind("..", 0) == 0) return path;
  return relative.string();
}

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

class ExpressionCheck {
 public:
  ExpressionCheck(const Pipeline& pipeline, sql::Connection& con)
      : pipeline_(pipeline), con_(con), file_(shown_path(pipeline.path)) {}

  void run() {
    con_.exec("CREATE SCHEMA IF NOT EXISTS lakestream_expression_check");
    for (const Stream* stream : pipeline_.in_dependency_order()) {
      switch (stream->kind) {
        case StreamKind::Ingest: check_ingest(*stream); break;
        case StreamKind::Latest: check_latest(*stream); break;
        case StreamKind::Window: check_window(*stream); break;
      }
    }
    con_.exec("DROP SCHEMA lakestream_expression_check CASCADE");
    if (mistakes_.empty()) return;
    if (mistakes_.size() == 1) throw Error(mistakes_.front());
    std::string all = std::to_string(mistakes_.size()) + " SQL expressions of " + file_ + " do not run:";
    for (const auto& mistake : mistakes_) all += "\n" + mistake;
    throw Error(all);
  }

 private:
  std::string table_sql(const std::string& table) const {
    return "lakestream_expression_check." + sql::quote_ident(table);
  }

  // Binds `select` (returns nothing: LIMIT 0); on failure records the mistake at `key`.
  bool binds(const Stream& stream, const std::string& key, const std::string& expression, const std::string& over,
             const std::string& select) {
    try {
      con_.query(select);
      return true;
    } catch (const Error& e) {
      auto line = stream.sql_lines.find(key);
      mistakes_.push_back(file_ + ":" + std::to_string(line == stream.sql_lines.end() ? stream.line : line->second) +
                          ": streams." + stream.name + "." + key + ": '" + expression + "' does not run over the columns of " +
                          over + ": " + reason_of(e));
      return false;
    }
  }

  void check_ingest(const Stream& stream) {
    const Source* source = pipeline_.find_source(stream.source);
    // An Avro source's columns are its writer schemas' fields, known when the stream runs.
    if (!source || source->format == SourceFormat::Avro) return;
    std::string columns;
    for (const auto& column : bronze_columns(*source))
      columns += (columns.empty() ? "" : ", ") + sql::quote_ident(column.name) + " " + delta::duckdb_type_of(column.type);
    std::string input = table_sql(stream.table + "__events");
    con_.exec("CREATE TABLE " + input + " (" + columns + ")");
    // Bronze takes shape with the derived columns that bind, so the streams reading it are
    // checked too (a column that did not bind is told already).
    std::string derived;
    for (const auto& [name, expression] : stream.derived) {
      if (binds(stream, "derived." + name, expression, "source " + source->name,
                "SELECT (" + expression + ") FROM " + input + " LIMIT 0"))
        derived += ", (" + expression + ") AS " + sql::quote_ident(name);
    }
    con_.exec("CREATE TABLE " + table_sql(stream.table) + " AS SELECT *" + derived + " FROM " + input + " LIMIT 0");
    shaped_.insert(stream.table);
  }

  void check_window(const Stream& stream) {
    if (!shaped_.count(stream.from)) return;  // its input did not take shape: told already
    std::string from = table_sql(stream.from);
    if (!stream.filter.empty())
      binds(stream, "filter", stream.filter, stream.from, "SELECT * FROM " + from + " WHERE (" + stream.filter + ") LIMIT 0");
    for (const auto& aggregate : stream.aggregates) {
      if (aggregate.argument == "*") continue;
      binds(stream, "aggregates." + aggregate.name, aggregate.function + "(" + aggregate.argument + ")", stream.from,
            "SELECT " + aggregate.function + "(" + aggregate.argument + ") FROM " + from + " LIMIT 0");
    }
  }

  void check_latest(const Stream& stream) {
    if (!stream.deletes.empty() && shaped_.count(stream.from))
      binds(stream, "deletes", stream.deletes, stream.from,
            "SELECT * FROM " + table_sql(stream.from) + " WHERE (" + stream.deletes + ") LIMIT 0");
    shape_like(stream.table, stream.from);
  }

  void shape_like(const std::string& table, const std::string& from) {
    if (!shaped_.count(from)) return;
    con_.exec("CREATE TABLE " + table_sql(table) + " AS SELECT * FROM " + table_sql(from) + " LIMIT 0");
    shaped_.insert(table);
  }

  const Pipeline& pipeline_;
  sql::Connection& con_;
  std::string file_;
  std::set<std::string> shaped_;  // tables created in the scratch schema
  std::vector<std::string> mistakes_;
};

}  // namespace

void check_stream_expressions(const Pipeline& pipeline, sql::Connection& con) { ExpressionCheck(pipeline, con).run(); }

void check_stream_expressions_once(const Pipeline& pipeline) {
  std::string marker = join_path(pipeline.checkpoints_dir, ".expressions-checked");
  std::string checked = std::to_string(std::hash<std::string>()(read_file(pipeline.path))) + "\n";
  if (path_exists(marker) && read_file(marker) == checked) return;
  {
    sql::Database db;
    sql::Connection con(db);
    check_stream_expressions(pipeline, con);
  }
  make_dirs(pipeline.checkpoints_dir, 0700);  // private, as every file of the checkpoints
  write_file_atomic(marker, checked, 0600);
}

}  // namespace lakestream
