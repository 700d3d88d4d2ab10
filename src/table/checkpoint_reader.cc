// Checkpoints are Parquet with nested action structs (or, for a v2 checkpoint, possibly JSON
// lines); DuckDB reads the Parquet and turns each row into JSON, so the same action parser serves
// commits and checkpoints alike.
#include "table/checkpoint_reader.h"

#include "sql/duckdb.h"
#include "table/checkpoint_sidecars.h"
#include "table/log_database.h"
#include "table/path_encoding.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

// The actions in local Parquet `files` (the parts of one checkpoint, or one sidecar).
void read_parquet_actions(const std::vector<std::string>& files, LogActions& into) {
  std::string list;
  for (const auto& file : files) list += (list.empty() ? "" : ", ") + sql::quote_literal(file);
  sql::Rows rows;
  try {
    std::unique_lock<std::mutex> turn;
    sql::Connection& con = LogDatabase::instance().connection(turn);
    rows = con.query("SELECT CAST(to_json(t) AS VARCHAR) AS action FROM read_parquet([" + list +
                     "], union_by_name = true, hive_partitioning = false) AS t");
  } catch (const Error& e) {
    throw Error("cannot read the Delta checkpoint " + files.front() + ": " + e.what() +
                "\n  the checkpoint is damaged; delete it and its _last_checkpoint if the JSON commits are still there");
  }
  for (size_t r = 0; r < rows.size(); r++) {
    const auto& text = rows.rows[r][0];
    if (!text) continue;
    nlohmann::json action;
    try {
      action = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::exception& e) {
      throw Error("cannot parse row " + std::to_string(r) + " of the Delta checkpoint " + files.front() + ": " + e.what());
    }
    read_action(action, into, files.front() + " row " + std::to_string(r));
  }
}

// A sidecar's key in the table: its path names a file of `_delta_log/_sidecars/` (the protocol
// lets it be a whole URI, which must then lie in that folder).
std::string sidecar_key(const Table& table, const std::string& path) {
  std::string decoded = url_decode_path(path);
  std::string folder = join_path(table.normal().path(), "_delta_log/_sidecars/");
  if (decoded.starts_with("file:") || decoded.find("://") != std::string::npos) {
    std::string local = decoded.starts_with("file://") ? decoded.substr(7) : decoded.starts_with("file:") ? decoded.substr(5) : decoded;
    if (!local.starts_with(folder))
      throw Error("a v2 checkpoint of table " + table.path() + " names the sidecar " + path + ", outside its " +
                  "_delta_log/_sidecars folder; the protocol keeps sidecars there");
    decoded = local.substr(folder.size());
  }
  if (decoded.empty() || decoded.find('/') != std::string::npos)
    throw Error("a v2 checkpoint of table " + table.path() + " names the sidecar \"" + path + "\", not a file name");
  return "_delta_log/_sidecars/" + decoded;
}

}  // namespace

LogActions read_checkpoint(const Table& table, const std::vector<storage::ObjectInfo>& parts, CheckpointRead read) {
  LogActions actions;
  if (parts.size() == 1 && parts.front().key.ends_with(".json")) {
    std::optional<std::string> text = read_table_file(table, parts.front().key);
    if (!text) throw Error("the Delta checkpoint " + parts.front().key + " of table " + table.path() + " is gone");
    actions = parse_commit_text(*text, join_path(table.path(), parts.front().key));
  } else {
    std::vector<std::string> files;
    for (const auto& part : parts) files.push_back(readable_path(table, part.key, part.size));
    read_parquet_actions(files, actions);
  }
  if (read == CheckpointRead::kTopLevel) return actions;
  std::vector<std::pair<std::string, int64_t>> wanted;  // key, size
  for (const auto& sidecar : actions.sidecars)
    if (read != CheckpointRead::kWithoutTombstoneSidecars || !holds_only_tombstones(sidecar))
      wanted.emplace_back(sidecar_key(table, sidecar.path), sidecar.size);
  // One check for all of them (a listing on a store, not one per sidecar).
  std::vector<std::string> keys;
  for (const auto& [key, size] : wanted) keys.push_back(key);
  std::vector<std::string> missing = missing_table_files(table, keys);
  if (!missing.empty())
    throw Error("the sidecar " + missing.front() + " of the v2 checkpoint " + parts.front().key + " of table " +
                table.path() + " is missing; the checkpoint cannot be read without it. Delete the checkpoint if the JSON "
                "commits are still there");
  for (const auto& [key, size] : wanted) read_parquet_actions({readable_path(table, key, size)}, actions);
  actions.sidecars.clear();
  return actions;
}

}  // namespace lakestream::delta
