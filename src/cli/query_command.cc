// `lakestream query [-p FILE] [--format table|csv|json] "SQL"`: reads the lake's tables with SQL.
#include <algorithm>
#include <iostream>
#include <regex>

#include "check/lake_views.h"
#include "checkpoint/replays.h"
#include "cli/commands.h"
#include "engine/lake_stores.h"
#include "sql/duckdb.h"

namespace lakestream::cli {

namespace {

std::string csv_field(const std::optional<std::string>& v) {
  if (!v) return "";
  if (v->find_first_of(",\"\n\r") == std::string::npos) return *v;
  std::string out = "\"";
  for (char c : *v) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void print_table(const sql::Rows& rows, std::ostream& out) {
  std::vector<size_t> width;
  for (const auto& c : rows.columns) width.push_back(c.size());
  for (const auto& row : rows.rows)
    for (size_t i = 0; i < row.size(); i++) width[i] = std::max(width[i], row[i] ? row[i]->size() : 4);
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); i++) {
      out << cells[i] << std::string(width[i] - cells[i].size(), ' ');
      out << (i + 1 < cells.size() ? "  " : "\n");
    }
  };
  line(rows.columns);
  std::vector<std::string> rule;
  for (size_t w : width) rule.push_back(std::string(w, '-'));
  line(rule);
  for (const auto& row : rows.rows) {
    std::vector<std::string> cells;
    for (const auto& v : row) cells.push_back(v ? *v : "NULL");
    line(cells);
  }
  out << "(" << rows.size() << (rows.size() == 1 ? " row)\n" : " rows)\n");
}

// The query's columns made fit for reading: bytes that are UTF-8 text (a quarantined record's
// value) as that text, not as DuckDB's \x22 escapes. For JSON also a NaN or infinite double
// becomes null (JSON has no such numbers) and a timestamp an ISO-8601 string in UTC
// ("2026-10-01T09:00:00.000000Z").
std::string printable(sql::Connection& con, const std::string& query, bool json) {
  sql::Rows described = con.query("DESCRIBE SELECT * FROM (" + query + ") q");
  std::string columns;
  bool changed = false;
  for (size_t r = 0; r < described.size(); r++) {
    std::string name = sql::quote_ident(described.text(r, "column_name"));
    std::string type = described.text(r, "column_type");
    std::string column = "q." + name;
    std::string as_is = column;
    if (type == "BLOB")
      column = "coalesce(try(decode(" + column + ")), " + column + "::VARCHAR)";
    else if (json && (type == "DOUBLE" || type == "FLOAT"))
      column = "CASE WHEN isfinite(" + column + ") THEN " + column + " END";
    else if (json && type == "TIMESTAMP WITH TIME ZONE")
      column = "strftime(timezone('UTC', " + column + "), '%Y-%m-%dT%H:%M:%S.%fZ')";
    else if (json && type.rfind("TIMESTAMP", 0) == 0)
      column = "strftime(" + column + "::TIMESTAMP, '%Y-%m-%dT%H:%M:%S.%fZ')";
    changed = changed || column != as_is;
    columns += (columns.empty() ? "" : ", ") + column + " AS " + name;
  }
  return changed ? "SELECT " + columns + " FROM (" + query + ") q" : query;
}

// A table of the pipeline that DuckDB does not find has not been written yet: say which stream
// writes it and what to do, rather than DuckDB's Catalog Error (and its "did you mean" among its
// own catalog's tables).
void explain_missing_table(const Pipeline& pipeline, sql::Connection& con, const Error& e) {
  std::smatch m;
  std::string text = e.what();
  if (!std::regex_search(text, m, std::regex("Table with name ([A-Za-z0-9_]+) does not exist"))) return;
  std::string table = m[1];
  auto exists = [&](const std::string& name) {
    return con.scalar_int("SELECT count(*) FROM duckdb_views() WHERE view_name = " + sql::quote_literal(name)) > 0;
  };
  for (const Stream& stream : pipeline.streams) {
    if (table == stream.table)
      throw Error("table " + table + " has no data yet: stream " + stream.name + " writes it and has not written it " +
                  "yet; run `lakestream run` (its first batch creates the table)");
    bool quarantine = stream.kind == StreamKind::Ingest && table == stream.table + "_quarantine";
    if (quarantine || (!stream.deleted_table().empty() && table == stream.deleted_table())) {
      std::string what = quarantine ? "when it quarantines a record" : "when it applies a delete";
      throw Error("table " + table + " has no data yet: stream " + stream.name + " writes it " + what + ", and " +
                  (exists(stream.table) ? "none has come so far" : "it has not run yet; run `lakestream run`"));
    }
  }
}

// The query's rows, printable (for JSON, each row one JSON text); a table of the pipeline not
// written yet is told as such.
sql::Rows run_query(const Pipeline& pipeline, sql::Connection& con, const std::string& query, bool json) {
  try {
    std::string shown = query;
    try {
      shown = printable(con, query, json);
    } catch (const Error&) {
      if (json) throw;  // a statement that is no query (SHOW TABLES) runs as written, for a table
    }
    // The row's alias is one no column of a user's query takes (`to_json(j)` of a column j would
    // give that column, not the row).
    if (json) shown = "SELECT to_json(__lakestream_row)::VARCHAR FROM (" + shown + ") __lakestream_row";
    return con.query(shown);
  } catch (const Error& e) {
    explain_missing_table(pipeline, con, e);
    throw;
  }
}

}  // namespace

void add_query_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("query", "Query the pipeline's tables with SQL (each table is a view by its name)");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto format = std::make_shared<std::string>("table");
  auto text = std::make_shared<std::string>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("-f,--format", *format, "output format")->check(CLI::IsMember({"table", "csv", "json"}))->capture_default_str();
  cmd->add_option("sql", *text, "the SQL query")->required();
  cmd->callback([pipeline_file, format, text] {
    Pipeline pipeline = with_replays(load_pipeline_with_stores(*pipeline_file));
    sql::Database db;
    sql::Connection con(db);
    create_lake_views(con, pipeline);
    if (*format == "json") {
      // DuckDB renders each row as a JSON object, with numbers as numbers.
      sql::Rows rows = run_query(pipeline, con, *text, true);
      for (const auto& row : rows.rows) std::cout << (row[0] ? *row[0] : "null") << "\n";
      return;
    }
    sql::Rows rows = run_query(pipeline, con, *text, false);
    if (*format == "csv") {
      for (size_t i = 0; i < rows.columns.size(); i++) std::cout << (i ? "," : "") << csv_field(rows.columns[i]);
      std::cout << "\n";
      for (const auto& row : rows.rows) {
        for (size_t i = 0; i < row.size(); i++) std::cout << (i ? "," : "") << csv_field(row[i]);
        std::cout << "\n";
      }
    } else {
      print_table(rows, std::cout);
    }
  });
}

}  // namespace lakestream::cli
