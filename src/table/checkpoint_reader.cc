// Checkpoints are Parquet with nested action structs; DuckDB reads them and turns each row into
// JSON, so the same action parser serves commits and checkpoints alike.
#include "table/checkpoint_reader.h"

#include "sql/duckdb.h"
#include "util/error.h"

namespace lakestream::delta {

LogActions read_checkpoint(const std::vector<std::string>& files) {
  std::string list;
  for (const auto& file : files) list += (list.empty() ? "" : ", ") + sql::quote_literal(file);
  sql::Database db;
  sql::Connection con(db);
  sql::Rows rows;
  try {
    rows = con.query("SELECT CAST(to_json(t) AS VARCHAR) AS action FROM read_parquet([" + list +
                     "], union_by_name = true, hive_partitioning = false) AS t");
  } catch (const Error& e) {
    throw Error("cannot read the Delta checkpoint " + files.front() + ": " + e.what() +
                "\n  the checkpoint is damaged; delete it and its _last_checkpoint if the JSON commits are still there");
  }
  LogActions actions;
  for (size_t r = 0; r < rows.size(); r++) {
    const auto& text = rows.rows[r][0];
    if (!text) continue;
    nlohmann::json action;
    try {
      action = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::exception& e) {
      throw Error("cannot parse row " + std::to_string(r) + " of the Delta checkpoint " + files.front() + ": " + e.what());
    }
    read_action(action, actions, files.front() + " row " + std::to_string(r));
  }
  return actions;
}

}  // namespace lakestream::delta
