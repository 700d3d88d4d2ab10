#include "sinks/upsert.h"

#include <algorithm>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "sinks/file_key_sets.h"
#include "sinks/key_index.h"
#include "sql/row_per_group.h"
#include "table/column_mapping.h"
#include "table/deletion_vector.h"
#include "table/parquet_file.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "table/schema_columns.h"
#include "util/cpu_profile.h"
#include "util/fault.h"

namespace lakestream {

namespace {

// NULL matches NULL: a window of a NULL group value, or an entity with a NULL key column, is one
// row, updated in place (still a hash join).
std::string key_match(const std::vector<std::string>& key) {
  std::string on;
  for (const auto& k : key)
    on += (on.empty() ? "" : " AND ") + ("s." + sql::quote_ident(k) + " IS NOT DISTINCT FROM t." + sql::quote_ident(k));
  return on;
}

// The files whose statistics allow an incoming key (files without statistics always do); a NULL
// key may be in any file whose statistics count NULLs in the key column (or do not say).
std::vector<delta::AddFile> files_that_may_hold(sql::Connection& con, const delta::Snapshot& snapshot,
                                                const std::string& incoming, const delta::Column& key) {
  if (snapshot.files.empty()) return {};
  std::string type = delta::duckdb_type_of(key.type);
  con.exec("CREATE OR REPLACE TEMP TABLE upsert_file_ranges (i INTEGER, kmin " + type + ", kmax " + type +
           ", may_hold_null BOOLEAN)");
  // Statistics name the column as the files do (its physical name under column mapping).
  const delta::Column* in_table = delta::find_column(snapshot.metadata.schema, key.name);
  const std::string stored = in_table ? delta::physical_name(snapshot.metadata, *in_table) : key.name;
  {
    sql::Appender appender(con, "upsert_file_ranges");
    for (size_t i = 0; i < snapshot.files.size(); i++) {
      const auto& file = snapshot.files[i];
      std::optional<std::string> lo, hi;
      bool may_hold_null = true;
      if (!file.stats.empty()) {
        auto stats = nlohmann::json::parse(file.stats, nullptr, false);
        if (!stats.is_discarded() && stats.contains("minValues") && stats.contains("maxValues")) {
          auto text = [](const nlohmann::json& v) -> std::optional<std::string> {
            if (v.is_null()) return std::nullopt;
            return v.is_string() ? v.get<std::string>() : v.dump();
          };
          if (stats["minValues"].contains(stored)) lo = text(stats["minValues"][stored]);
          if (stats["maxValues"].contains(stored)) hi = text(stats["maxValues"][stored]);
        }
        if (!stats.is_discarded() && stats.contains("nullCount") && stats["nullCount"].contains(stored) &&
            stats["nullCount"][stored].is_number_integer())
          may_hold_null = stats["nullCount"][stored].get<int64_t>() > 0;
      }
      appender.append_int32(static_cast<int32_t>(i));
      // Min/max are cast by DuckDB from their JSON text to the key's type.
      if (lo) appender.append_text(*lo); else appender.append_null();
      if (hi) appender.append_text(*hi); else appender.append_null();
      appender.append_bool(may_hold_null);
      appender.end_row();
    }
  }
  std::string k = sql::quote_ident(key.name);
  sql::Rows rows = con.query("SELECT i FROM upsert_file_ranges f WHERE f.kmin IS NULL OR f.kmax IS NULL OR EXISTS "
                             "(SELECT 1 FROM " + incoming + " s WHERE s." + k + " BETWEEN f.kmin AND f.kmax) OR (f.may_hold_null AND "
                             "EXISTS (SELECT 1 FROM " + incoming + " s WHERE s." + k + " IS NULL)) ORDER BY i");
  std::vector<delta::AddFile> files;
  for (const auto& row : rows.rows) files.push_back(snapshot.files[std::stoul(*row[0])]);
  return files;
}

// As the commit leaves the table: the batch that turns delta.enableDeletionVectors on (and raises
// the protocol with it) already merges on read.
bool writes_deletion_vectors(const delta::Commit& commit) {
  return delta::deletion_vectors_enabled(commit.metadata_after()) &&
         delta::has_feature(commit.protocol_after(), "deletionVectors");
}

// What merge-on-read did to the files holding replaced rows.
struct MarkedFiles {
  int64_t vectors_written = 0;
  std::vector<delta::AddFile> purged;  // removed, their live rows to be written again with the batch
  std::vector<std::string> removed, added;  // the files removed and added (logical keys), for the key index
};

// Merge-on-read: each file holding rows that upsert_winners replace (or remove) is removed and
// added again with a deletion vector marking them, its old vector's rows kept; a file left with
// no row is only removed. A file whose rows would then be kPurgeDeletedShare or more deleted is
// purged instead: removed, its live rows (but the replaced ones) written again with the batch's
// in the same commit. So a table's dead rows stay bounded without a compaction that would
// conflict with every batch of a stream that touches every file (random keys); and rewriting
// a file when a quarter of it is dead writes, averaged over the updates that killed it, about 3
// rows per updated row.
MarkedFiles mark_replaced_rows(sql::Connection& con, const delta::Table& into, delta::Commit& commit,
                               const delta::Snapshot& affected, const std::string& match) {
  MarkedFiles marked_files;
  // A table whose row ids must stay stable is never purged here: its rows would move to a new file.
  const bool may_purge = !delta::row_tracking_enabled(commit.protocol_after(), commit.metadata_after());
  // upsert_matched holds the existing rows of incoming keys with their file and position.
  sql::Rows replaced = con.query("SELECT t.__lakestream_file, t.__lakestream_row FROM upsert_matched t SEMI JOIN "
                                 "upsert_winners s ON " + match);
  std::map<std::string, std::vector<uint64_t>> rows_by_file;
  for (const auto& row : replaced.rows) rows_by_file[*row[0]].push_back(std::stoull(*row[1]));
  const delta::Table& table = affected.table;
  for (const auto& file : affected.files) {
    auto found = rows_by_file.find(delta::readable_path(table, file.path, file.size));
    if (found == rows_by_file.end()) continue;
    std::vector<uint64_t> rows = found->second;
    if (file.deletion_vector) {
      auto before = delta::deleted_rows(into, *file.deletion_vector);
      rows.insert(rows.end(), before.begin(), before.end());
    }
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    commit.remove(file);
    marked_files.removed.push_back(file.logical_key());
    // A file with a vector must state its row count (numRecords); one written without stats
    // gets it from its Parquet footer.
    auto stats = nlohmann::json::parse(file.stats.empty() ? "{}" : file.stats, nullptr, false);
    if (stats.is_discarded() || !stats.is_object()) stats = nlohmann::json::object();
    if (!stats.contains("numRecords") || !stats["numRecords"].is_number_integer())
      stats["numRecords"] = con.scalar_int("SELECT count(*) FROM read_parquet(" +
                                           sql::quote_literal(delta::readable_path(table, file.path, file.size)) + ")");
    int64_t records = stats["numRecords"].get<int64_t>();
    if (static_cast<int64_t>(rows.size()) >= records) continue;  // every row of it is gone
    if (may_purge && static_cast<double>(rows.size()) >= kPurgeDeletedShare * static_cast<double>(records)) {
      marked_files.purged.push_back(file);
      continue;
    }
    delta::AddFile marked = file;
    marked.deletion_vector = delta::write_deletion_vector(into, rows);
    marked.data_change = true;
    // Its min/max may now be wider than its live rows: the protocol's wide bounds.
    stats["tightBounds"] = false;
    marked.stats = stats.dump();
    commit.add(marked);
    marked_files.added.push_back(marked.logical_key());
    marked_files.vectors_written++;
  }
  return marked_files;
}

// The change data feed of a merge that replaced (or removed) existing rows: each replaced row as
// update_preimage (delete when the incoming row removes it), each incoming row that replaced one
// as update_postimage, each new key's row as insert. A merge that only inserts writes none: a
// reader takes its added rows as inserts.
void write_changes(sql::Connection& con, const delta::Table& into, delta::Commit& commit, const delta::Metadata& table,
                   const std::string& existing, const std::vector<delta::Column>& columns, const std::string& match,
                   const std::string& removes) {
  std::string t_list, s_list;
  for (const auto& c : columns) {
    t_list += (t_list.empty() ? "t." : ", t.") + sql::quote_ident(c.name);
    s_list += (s_list.empty() ? "s." : ", s.") + sql::quote_ident(c.name);
  }
  // The replaced rows, read once (the scan of the affected files is most of the cost; the three
  // parts of the changes then join the batch's rows with these few).
  con.exec("CREATE OR REPLACE TEMP TABLE upsert_replaced AS SELECT " + t_list + " FROM " + existing + " t SEMI JOIN upsert_winners s ON " +
           match);
  std::string removed = removes.empty() ? "false" : "(" + removes + ")";
  std::string changes =
      "SELECT " + t_list + ", CASE WHEN " + removed + " THEN 'delete' ELSE 'update_preimage' END AS _change_type FROM upsert_replaced "
      "t JOIN upsert_winners s ON " + match + " UNION ALL SELECT " + s_list + ", 'update_postimage' FROM upsert_winners s SEMI JOIN "
      "upsert_replaced t ON " + match + " WHERE NOT " + removed + " UNION ALL SELECT " + s_list +
      ", 'insert' FROM upsert_winners s ANTI JOIN upsert_replaced t ON " + match + " WHERE NOT " + removed;
  delta::ChangeDataFile file = delta::write_change_data_file(con, into, table, changes, columns);
  if (!file.path.empty()) commit.add_change_data(file);
  con.exec("DROP TABLE upsert_replaced");
}

// The files of `affected` that hold an existing row a winner replaces (or removes), by
// upsert_matched's file of each match; `hot` is set to the one holding the greatest replaced key
// of the first key column (the first file by name when every such key is NULL).
std::vector<delta::AddFile> files_holding_replaced_rows(sql::Connection& con, const delta::Snapshot& affected,
                                                        const std::vector<std::string>& key, int64_t matched, std::string& hot) {
  // The files, the one holding the greatest replaced key first: the hot one (of files tied on
  // it, the first by path). A service's batch replaces a few hundred rows, and DuckDB's hash
  // aggregate costs milliseconds (its table, allocated and cleared) however few: those rows are
  // sorted instead, each file read off at its first row. Many rows are grouped, on every core.
  const std::string first_key = "t." + sql::quote_ident(key.at(0));
  const std::string by_greatest_key = sql::grouping_for(matched) == sql::Grouping::OneSort
                                          ? " ORDER BY " + first_key
                                          : " GROUP BY ALL ORDER BY max(" + first_key + ")";
  sql::Rows holding = con.query("SELECT t.__lakestream_file AS file FROM upsert_matched t SEMI JOIN upsert_winners s ON " +
                                key_match(key) + by_greatest_key + " DESC NULLS LAST, file");
  std::set<std::string> paths;
  for (size_t i = 0; i < holding.size(); i++) paths.insert(holding.text(i, "file"));
  hot = holding.size() > 0 ? holding.text(0, "file") : "";
  std::vector<delta::AddFile> files;
  for (const auto& file : affected.files)
    if (paths.count(delta::readable_path(affected.table, file.path, file.size))) files.push_back(file);
  return files;
}

// Copy-on-write: the files of `replacing` (each holds a row a winner replaces or removes) are
// removed and written again without those rows, the winners with them. Each file is rewritten
// on its own, with the winners that replace its rows, so that a file keeps its keys: an update
// of an old key rewrites the file that holds it, not that file merged into the one the newest
// keys keep changing. That one, the hot file (it holds the greatest replaced key), takes the new
// keys too. Rewriting whole files, a stream whose updates follow its newest keys (orders,
// sessions) would keep rewriting one hot file that every new key joins, growing with the table;
// so its rows below every key the batch replaced in it (by the first key column; the new keys
// below that too) are written apart, once they are as many as the rest: the hot file stays
// about the size of the keys still being updated, and the settled file is not touched while
// updates stay above it. Keys in no order (UUIDs) replace rows everywhere and settle little:
// that is merge-on-read's case (deletion_vectors). `hot` is the hot file's path (as
// files_holding_replaced_rows sets it). Returns the hot file's rows, for the caller to write with
// its commit (they read upsert_targets, dropped with upsert_winners).
std::string rewrite_replacing_files(sql::Connection& con, const delta::Table& into, delta::Commit& commit,
                                    const delta::Metadata& table_after, const delta::Snapshot& replacing,
                                    const std::string& hot, const std::vector<delta::Column>& columns,
                                    const std::vector<std::string>& key, const std::string& written_only) {
  const std::string match = key_match(key);
  const std::string first_key = sql::quote_ident(key.at(0));
  std::string column_list, key_list;
  for (const auto& c : columns) column_list += (column_list.empty() ? "" : ", ") + sql::quote_ident(c.name);
  for (const auto& k : key) key_list += (key_list.empty() ? "t." : ", t.") + sql::quote_ident(k);
  const std::string replaced = "upsert_matched t SEMI JOIN upsert_winners s ON " + match;
  std::map<std::string, delta::AddFile> by_path;
  for (const auto& file : replacing.files) by_path[delta::readable_path(replacing.table, file.path, file.size)] = file;
  auto scan_of = [&](const delta::AddFile& file) { return "(" + delta::scan_sql(delta::with_files(replacing, {file})) + ")"; };
  auto survivors_of = [&](const std::string& path) {
    return "SELECT " + column_list + " FROM " + scan_of(by_path.at(path)) + " t ANTI JOIN upsert_winners s ON " + match;
  };
  // A winner goes with one file holding its key: the hot file when that is one, else the first.
  std::string hot_winners = "SELECT " + column_list + " FROM upsert_winners s";
  if (by_path.size() > 1) {
    con.exec("CREATE OR REPLACE TEMP TABLE upsert_targets AS SELECT " + key_list + ", CASE WHEN bool_or(t.__lakestream_file = " +
             sql::quote_literal(hot) + ") THEN " + sql::quote_literal(hot) +
             " ELSE min(t.__lakestream_file) END AS __lakestream_target FROM " + replaced + " GROUP BY ALL");
    for (const auto& [path, file] : by_path) {
      if (path == hot) continue;
      delta::AddFile rewritten = delta::write_data_file(
          con, into, table_after,
          survivors_of(path) + " UNION ALL SELECT " + column_list + " FROM upsert_winners s SEMI JOIN (SELECT * FROM " +
              "upsert_targets WHERE __lakestream_target = " + sql::quote_literal(path) + ") t ON " + match + written_only,
          columns);
      if (!rewritten.path.empty()) commit.add(rewritten);
    }
    hot_winners += " ANTI JOIN (SELECT * FROM upsert_targets WHERE __lakestream_target <> " + sql::quote_literal(hot) +
                   ") t ON " + match;
  }
  hot_winners += written_only;
  const std::string hot_rows = "(" + survivors_of(hot) + " UNION ALL " + hot_winners + ") r";
  const std::string settled = "coalesce(r." + first_key + " < (SELECT min(t." + first_key + ") FROM " + replaced +
                              " WHERE t.__lakestream_file = " + sql::quote_literal(hot) + "), false)";
  sql::Rows counts = con.query("SELECT count(*) FILTER (WHERE " + settled + ") AS settled, count(*) AS all_rows FROM " + hot_rows);
  const int64_t settled_rows = std::stoll(counts.text(0, "settled"));
  const int64_t staying_rows = std::stoll(counts.text(0, "all_rows")) - settled_rows;
  if (settled_rows == 0 || settled_rows < staying_rows) return "SELECT * FROM " + hot_rows;
  delta::AddFile settled_file = delta::write_data_file(con, into, table_after, "SELECT * FROM " + hot_rows + " WHERE " + settled, columns);
  if (!settled_file.path.empty()) commit.add(settled_file);
  return "SELECT * FROM " + hot_rows + " WHERE NOT " + settled;
}

}  // namespace

UpsertResult upsert_rows(sql::Connection& con, const delta::Table& into, delta::Commit& commit,
                         const delta::Snapshot& snapshot,
                         const std::string& incoming, const std::vector<std::string>& key,
                         const std::string& keep_existing, const std::vector<delta::Column>& columns,
                         const std::string& removes, KeyIndex* index, FileKeySets* key_sets) {
  CpuScope cpu_scope("upsert_rows");
  UpsertResult result;
  const delta::Metadata table_after = commit.metadata_after();  // what the files are written and read under
  std::string written_only = removes.empty() ? "" : " WHERE NOT (" + removes + ")";
  // Read in the writer's shape: after a schema change, columns the old files lack come as null.
  // Each column as the table (after this commit) knows it, so that column mapping finds it in
  // the files by its physical name or field id.
  delta::Snapshot writer_shape = snapshot;
  writer_shape.metadata = table_after;
  writer_shape.metadata.schema.clear();
  for (const auto& column : columns) {
    const delta::Column* in_table = delta::find_column(table_after.schema, column.name);
    writer_shape.metadata.schema.push_back(in_table ? *in_table : column);
  }
  const bool merge_on_read = writes_deletion_vectors(commit);
  // Merge-on-read with the key index: it says which rows of which files hold the batch's keys
  // (upsert_matched, below), without reading the table.
  std::optional<std::set<std::string>> holding;
  if (merge_on_read && index && index->cover(con, writer_shape)) holding = index->match(con, incoming, "upsert_matched");
  const bool indexed = holding.has_value();
  std::vector<delta::AddFile> affected;
  if (indexed) {
    const delta::Table& table = snapshot.table;
    for (const auto& file : snapshot.files)
      if (holding->count(delta::readable_path(table, file.path, file.size))) affected.push_back(file);
  } else {
    const delta::Column* first_key = delta::find_column(columns, key.at(0));
    affected = first_key ? files_that_may_hold(con, snapshot, incoming, *first_key) : snapshot.files;
    // Of those, the files that do hold an incoming key (statistics allow every file whose range
    // spans an old key the batch updates, however few such keys there are).
    if (key_sets && first_key && FileKeySets::serves(*first_key))
      affected = key_sets->holding(con, writer_shape, affected, incoming, key.at(0));
  }
  MarkedFiles marked;

  std::string column_list;
  for (const auto& c : columns) column_list += (column_list.empty() ? "" : ", ") + sql::quote_ident(c.name);
  std::string rows;
  std::string winners_table = "upsert_winners";
  if (affected.empty()) {
    // No file can hold an incoming key: every incoming row is new, appended as it is.
    con.exec("DROP TABLE IF EXISTS upsert_matched");
    winners_table = incoming;
    result.rows_written = con.scalar_int("SELECT count(*) FROM " + incoming + " s" + written_only);
    if (result.rows_written == 0) return result;
    rows = "SELECT " + column_list + " FROM " + incoming + " s" + written_only;
  } else {
    // The affected files are read in place: DuckDB reads only the columns each statement needs
    // (the keys and what keep_existing looks at; everything only for the rows a rewrite keeps).
    const delta::Snapshot affected_only = delta::with_files(writer_shape, affected);
    const std::string match = key_match(key);
    std::string key_columns;
    for (const auto& k : key) key_columns += (key_columns.empty() ? "" : ", ") + ("s." + sql::quote_ident(k));
    // The existing rows of incoming keys, read once into upsert_matched (each match's key, file,
    // row and whether it stays), so that the joins below read the table's keys once: joined
    // first, then the few matches anti-joined with the vectors' deleted rows. (The key index
    // holds only live rows, and made upsert_matched already.)
    if (!indexed)
      con.exec("CREATE OR REPLACE TEMP TABLE upsert_matched AS SELECT m.* FROM (SELECT " + key_columns +
               ", t.__lakestream_file, t.__lakestream_row, (" + keep_existing + ") AS __lakestream_keeps FROM " + incoming +
               " s JOIN (" + delta::every_row_with_positions_sql(affected_only) + ") t ON " + match + ") m ANTI JOIN (" +
               delta::deleted_positions_sql(affected_only) +
               ") x ON m.__lakestream_file = x.__lakestream_file AND m.__lakestream_row = x.__lakestream_row");
    std::string keys;
    for (const auto& k : key) keys += (keys.empty() ? "" : ", ") + sql::quote_ident(k);
    // Incoming rows that win: all but those whose existing row stays. Hash joins on the keys
    // only (keep_existing is filtered after the join, not a join condition DuckDB cannot hash).
    con.exec("CREATE OR REPLACE TEMP TABLE upsert_winners AS SELECT s.* FROM " + incoming + " s ANTI JOIN (SELECT " + keys +
             " FROM upsert_matched WHERE __lakestream_keeps) t ON " + match);
    // The winners, those written, those that replace an existing row, those that remove one: one
    // statement (each costs about a millisecond however few the rows).
    const std::string removing = removes.empty() ? "false" : "(" + removes + ")";
    sql::Rows counts = con.query("SELECT count(*) AS winners, count(*) FILTER (WHERE NOT " + removing + ") AS written, "
                                 "count(t.__lakestream_matches) AS matched, count(t.__lakestream_matches) FILTER (WHERE " +
                                 removing + ") AS removed FROM upsert_winners s LEFT JOIN (SELECT DISTINCT " + keys +
                                 ", true AS __lakestream_matches FROM upsert_matched) t ON " + match);
    const int64_t winners = std::stoll(counts.text(0, "winners")), matched = std::stoll(counts.text(0, "matched"));
    result.rows_written = std::stoll(counts.text(0, "written"));
    result.rows_removed = std::stoll(counts.text(0, "removed"));
    if (winners == 0) {
      con.exec("DROP TABLE IF EXISTS upsert_matched");
      return result;
    }
    // The files that hold a replaced row: only these change. (The others of `affected` only
    // may hold an incoming key by their statistics.)
    delta::Snapshot replacing = affected_only;
    std::string hot;
    if (matched > 0 && !merge_on_read) replacing.files = files_holding_replaced_rows(con, affected_only, key, matched, hot);
    const std::string existing = "(" + delta::scan_sql(replacing) + ")";
    if (matched > 0 && delta::change_data_feed_enabled(table_after))
      write_changes(con, into, commit, table_after, existing, columns, match, removes);
    const std::string winners_rows = "SELECT " + column_list + " FROM upsert_winners s" + written_only;
    if (matched > 0 && merge_on_read) {
      marked = mark_replaced_rows(con, into, commit, affected_only, match);
      result.vectors_written = marked.vectors_written;
      result.files_rewritten = static_cast<int64_t>(marked.purged.size());
      rows = winners_rows;
      if (!marked.purged.empty()) {
        rows += " UNION ALL SELECT " + column_list + " FROM (" + delta::scan_sql(delta::with_files(affected_only, marked.purged)) +
                ") t ANTI JOIN upsert_winners s ON " +
                match;
      }
    } else if (matched > 0) {
      for (const auto& f : replacing.files) commit.remove(f);
      result.files_rewritten = static_cast<int64_t>(replacing.files.size());
      rows = rewrite_replacing_files(con, into, commit, table_after, replacing, hot, columns, key, written_only);
    } else {
      rows = winners_rows;  // only new keys: append them
    }
  }
  delta::AddFile added = delta::write_data_file(con, into, table_after, rows, columns);
  if (!added.path.empty()) {
    commit.add(added);
    marked.added.push_back(added.logical_key());
  }
  if (indexed) index->expect_commit(con, winners_table, marked.removed, marked.added, added);
  con.exec("DROP TABLE IF EXISTS upsert_winners; DROP TABLE IF EXISTS upsert_matched; DROP TABLE IF EXISTS upsert_targets");
  fault_point("after_data_files");
  return result;
}

}  // namespace lakestream
