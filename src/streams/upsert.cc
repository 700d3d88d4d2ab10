#include "streams/upsert.h"

#include <nlohmann/json.hpp>

#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "util/fault.h"

namespace lakestream {

namespace {

std::string key_match(const std::vector<std::string>& key) {
  std::string on;
  for (const auto& k : key) on += (on.empty() ? "" : " AND ") + ("s." + sql::quote_ident(k) + " = t." + sql::quote_ident(k));
  return on;
}

// The files whose statistics allow an incoming key (files without statistics always do).
std::vector<delta::AddFile> files_that_may_hold(sql::Connection& con, const delta::Snapshot& snapshot,
                                                const std::string& incoming, const delta::Column& key) {
  if (snapshot.files.empty()) return {};
  std::string type = delta::duckdb_type_of(key.type);
  con.exec("CREATE OR REPLACE TEMP TABLE upsert_file_ranges (i INTEGER, kmin " + type + ", kmax " + type + ")");
  std::vector<delta::AddFile> unknown;
  {
    sql::Appender appender(con, "upsert_file_ranges");
    for (size_t i = 0; i < snapshot.files.size(); i++) {
      const auto& file = snapshot.files[i];
      std::optional<std::string> lo, hi;
      if (!file.stats.empty()) {
        auto stats = nlohmann::json::parse(file.stats, nullptr, false);
        if (!stats.is_discarded() && stats.contains("minValues") && stats.contains("maxValues")) {
          auto text = [](const nlohmann::json& v) -> std::optional<std::string> {
            if (v.is_null()) return std::nullopt;
            return v.is_string() ? v.get<std::string>() : v.dump();
          };
          if (stats["minValues"].contains(key.name)) lo = text(stats["minValues"][key.name]);
          if (stats["maxValues"].contains(key.name)) hi = text(stats["maxValues"][key.name]);
        }
      }
      appender.append_int32(static_cast<int32_t>(i));
      // Min/max are cast by DuckDB from their JSON text to the key's type.
      if (lo) appender.append_text(*lo); else appender.append_null();
      if (hi) appender.append_text(*hi); else appender.append_null();
      appender.end_row();
    }
  }
  std::string k = sql::quote_ident(key.name);
  sql::Rows rows = con.query("SELECT i FROM upsert_file_ranges f WHERE f.kmin IS NULL OR f.kmax IS NULL OR EXISTS "
                             "(SELECT 1 FROM " + incoming + " s WHERE s." + k + " BETWEEN f.kmin AND f.kmax) ORDER BY i");
  std::vector<delta::AddFile> files;
  for (const auto& row : rows.rows) files.push_back(snapshot.files[std::stoul(*row[0])]);
  return files;
}

}  // namespace

UpsertResult upsert_rows(sql::Connection& con, const std::string& table_path, delta::Commit& commit,
                         const delta::Snapshot& snapshot,
                         const std::string& incoming, const std::vector<std::string>& key,
                         const std::string& keep_existing, const std::vector<delta::Column>& columns) {
  UpsertResult result;
  const delta::Column* first_key = delta::find_column(columns, key.at(0));
  std::vector<delta::AddFile> affected =
      first_key ? files_that_may_hold(con, snapshot, incoming, *first_key) : snapshot.files;

  if (affected.empty()) {
    con.exec("CREATE OR REPLACE TEMP TABLE upsert_existing AS SELECT * FROM " + incoming + " LIMIT 0");
  } else {
    delta::Snapshot affected_only = snapshot;
    affected_only.files = affected;
    // Read in the writer's shape: after a schema change, columns the old files lack come as null.
    affected_only.metadata.schema = columns;
    con.exec("CREATE OR REPLACE TEMP TABLE upsert_existing AS SELECT * FROM (" + delta::scan_sql(affected_only) + ")");
  }

  std::string match = key_match(key);
  // Incoming rows that win: new keys, and keys whose existing row does not stay.
  con.exec("CREATE OR REPLACE TEMP TABLE upsert_winners AS SELECT s.* FROM " + incoming +
           " s WHERE NOT EXISTS (SELECT 1 FROM upsert_existing t WHERE " + match + " AND (" + keep_existing + "))");
  result.rows_written = con.scalar_int("SELECT count(*) FROM upsert_winners");
  if (result.rows_written == 0) return result;

  bool touches_existing = con.scalar_int("SELECT count(*) FROM upsert_winners s JOIN upsert_existing t ON " + match) > 0;
  std::string column_list;
  for (const auto& c : columns) column_list += (column_list.empty() ? "" : ", ") + sql::quote_ident(c.name);
  std::string rows;
  if (touches_existing) {
    // Rewrite the affected files: their rows minus the replaced ones, plus the winners.
    rows = "SELECT " + column_list + " FROM upsert_existing t WHERE NOT EXISTS (SELECT 1 FROM upsert_winners s WHERE " +
           match + ") UNION ALL SELECT " + column_list + " FROM upsert_winners";
    for (const auto& f : affected) commit.remove(f.path);
    result.files_rewritten = static_cast<int64_t>(affected.size());
  } else {
    rows = "SELECT " + column_list + " FROM upsert_winners";  // only new keys: append them
  }
  delta::AddFile added = delta::write_data_file(con, table_path, rows, columns);
  if (!added.path.empty()) commit.add(added);
  fault_point("after_data_files");
  return result;
}

}  // namespace lakestream
