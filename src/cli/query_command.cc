// `lakestream query [-p FILE] [--format table|csv|json] "SQL"`: reads the lake's tables with SQL.
#include <algorithm>
#include <iostream>

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

// The query's columns made fit for JSON: a NaN or infinite double becomes null (JSON has no
// such numbers) and a timestamp an ISO-8601 string in UTC ("2026-10-01T09:00:00.000000Z").
std::string json_ready(sql::Connection& con, const std::string& query) {
  sql::Rows described = con.query("DESCRIBE SELECT * FROM (" + query + ") q");
  std::string columns;
  for (size_t r = 0; r < described.size(); r++) {
    std::string name = sql::quote_ident(described.text(r, "column_name"));
    std::string type = described.text(r, "column_type");
    std::string column = "q." + name;
    if (type == "DOUBLE" || type == "FLOAT")
      column = "CASE WHEN isfinite(" + column + ") THEN " + column + " END";
    else if (type == "TIMESTAMP WITH TIME ZONE")
      column = "strftime(timezone('UTC', " + column + "), '%Y-%m-%dT%H:%M:%S.%fZ')";
    else if (type.rfind("TIMESTAMP", 0) == 0)
      column = "strftime(" + column + "::TIMESTAMP, '%Y-%m-%dT%H:%M:%S.%fZ')";
    columns += (columns.empty() ? "" : ", ") + column + " AS " + name;
  }
  return "SELECT " + columns + " FROM (" + query + ") q";
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
      // The row's alias is one no column of a user's query takes (`to_json(j)` of a column j
      // would give that column, not the row).
      sql::Rows rows = con.query("SELECT to_json(__lakestream_row)::VARCHAR FROM (" + json_ready(con, *text) +
                                 ") __lakestream_row");
      for (const auto& row : rows.rows) std::cout << (row[0] ? *row[0] : "null") << "\n";
      return;
    }
    sql::Rows rows = con.query(*text);
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
