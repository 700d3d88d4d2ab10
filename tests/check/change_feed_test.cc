// The change data feed (delta.enableChangeDataFeed): each merge that replaces or removes rows
// writes them, with their change type, in a cdc file of its commit. Over generated batches
// (random keys, updates, inserts, deletes, a key several times), copy-on-write and merge-on-read,
// the changes each commit's log names (read here from the JSON and the Parquet files with
// DuckDB's read_parquet, not through lakestream's reader) must be what a model in plain SQL says
// changed; a commit without cdc files must only insert. check's replay of the feed must then be
// ok, and a change row gone missing its PROBLEM.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "check/change_feed.h"
#include "sinks/upsert.h"
#include "sql/duckdb.h"
#include "support/other_readers.h"
#include "support/test_support.h"
#include "table/parquet_file.h"
#include "table/table_fixtures.h"
#include "table/vacuum.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {
namespace {

std::vector<delta::Column> columns() { return {{"id", "long"}, {"amount", "double"}, {"note", "string"}}; }

void create_table(sql::Connection& con, const std::string& table, const std::string& first_rows, bool vectors) {
  delta::Commit commit(delta::load_snapshot(table));
  delta::Metadata metadata;
  metadata.schema = columns();
  metadata.configuration["delta.enableChangeDataFeed"] = "true";
  if (vectors) metadata.configuration["delta.enableDeletionVectors"] = "true";
  commit.set_metadata(metadata);
  for (int f = 0; f < 4; f++)
    commit.add(delta::write_data_file(con, table, delta::Metadata{},
                                      "SELECT * FROM (" + first_rows + ") WHERE id % 4 = " + std::to_string(f) + " ORDER BY id", columns()));
  commit.publish();
}

std::string commit_file(const std::string& table, int64_t version) {
  char name[32];
  std::snprintf(name, sizeof name, "%020lld.json", static_cast<long long>(version));
  return table + "/_delta_log/" + name;
}

// The paths (in the table folder) of the actions of `kind` in the commit, as its JSON names them.
std::vector<std::string> files_named(const std::string& table, int64_t version, const std::string& kind) {
  std::vector<std::string> paths;
  std::istringstream lines(read_file(commit_file(table, version)));
  for (std::string line; std::getline(lines, line);) {
    auto action = nlohmann::json::parse(line);
    if (action.contains(kind) && (kind != "add" || !action[kind].contains("deletionVector")))
      paths.push_back(table + "/" + action[kind]["path"].get<std::string>());
  }
  return paths;
}

std::string parquet_list(const std::vector<std::string>& paths) {
  std::string list;
  for (const auto& p : paths) list += (list.empty() ? "" : ", ") + sql::quote_literal(p);
  return "[" + list + "]";
}

int64_t differing(sql::Connection& con, const std::string& a, const std::string& b) {
  return con.scalar_int("SELECT count(*) FROM ((" + a + " EXCEPT ALL " + b + ") UNION ALL (" + b + " EXCEPT ALL " + a + "))");
}

std::vector<CheckLine> checked(sql::Connection& con, const std::string& table) {
  delta::Snapshot snapshot = delta::load_snapshot(table);
  con.exec("CREATE OR REPLACE VIEW t AS " + delta::scan_sql(snapshot));
  return check_change_feed(con, "t", snapshot);
}

TEST(ChangeDataFeed, EachMergeWritesWhatAModelSaysChangedCopyOnWriteAndMergeOnRead) {
  int64_t with_changes = 0, inserts_only = 0;
  for (bool vectors : {false, true})
    for (uint32_t seed : {11u, 12u, 13u}) {
      testing::TempDir dir;
      std::string table = dir / "t";
      sql::Database db;
      sql::Connection con(db);
      std::mt19937 random(seed);
      const int keys = 2000;
      std::string first = "SELECT i::BIGINT AS id, (i * 1.5)::DOUBLE AS amount, 'v0' AS note FROM range(" + std::to_string(keys) + ") t(i)";
      create_table(con, table, first, vectors);
      con.exec("CREATE TABLE model AS " + first);
      for (int batch = 1; batch <= 10; batch++) {
        // Random keys, old and new (some twice: the last wins), a tenth deletes; now and then
        // only new keys, which change no row.
        bool only_new = random() % 4 == 0;
        std::string values;
        int n = 1 + static_cast<int>(random() % 150);
        for (int i = 0; i < n; i++) {
          int64_t id = only_new ? keys + 1000 * batch + i : static_cast<int64_t>(random() % (keys + 300));
          std::string note = !only_new && random() % 10 == 0 ? "delete" : "v" + std::to_string(batch);
          values += (values.empty() ? "" : ", ") +
                    ("(" + std::to_string(id) + ", " + std::to_string(random() % 1000) + ".25, '" + note + "', " + std::to_string(i) + ")");
        }
        con.exec("CREATE OR REPLACE TABLE incoming AS SELECT * FROM (VALUES " + values + ") t(id, amount, note, seq)");
        con.exec("CREATE OR REPLACE TABLE incoming_last AS SELECT id::BIGINT AS id, amount::DOUBLE AS amount, note FROM "
                 "incoming QUALIFY row_number() OVER (PARTITION BY id ORDER BY seq DESC) = 1");
        // What changed, by the model: a replaced row before and after, a removed one deleted, a new key inserted.
        con.exec("CREATE OR REPLACE TABLE expected AS "
                 "SELECT m.*, CASE WHEN i.note = 'delete' THEN 'delete' ELSE 'update_preimage' END AS _change_type FROM model m JOIN incoming_last i USING (id) "
                 "UNION ALL SELECT i.*, 'update_postimage' FROM incoming_last i SEMI JOIN model m USING (id) WHERE i.note <> 'delete' "
                 "UNION ALL SELECT i.*, 'insert' FROM incoming_last i ANTI JOIN model m USING (id) WHERE i.note <> 'delete'");
        con.exec("DELETE FROM model WHERE id IN (SELECT id FROM incoming_last)");
        con.exec("INSERT INTO model SELECT * FROM incoming_last WHERE note <> 'delete'");

        delta::Snapshot snapshot = delta::load_snapshot(table);
        delta::Commit commit(snapshot);
        upsert_rows(con, table, commit, snapshot, "(SELECT id, amount, note FROM incoming_last)", {"id"}, "false", columns(),
                    "s.note = 'delete'");
        int64_t version = commit.publish();
        std::string at = (vectors ? "merge-on-read" : "copy-on-write") + std::string(" seed ") + std::to_string(seed) + " batch " +
                         std::to_string(batch);
        auto cdc = files_named(table, version, "cdc");
        if (cdc.empty()) {
          // No row changed: the commit's new files are the inserts, and nothing else happened.
          inserts_only++;
          EXPECT_EQ(con.scalar_int("SELECT count(*) FROM expected WHERE _change_type <> 'insert'"), 0) << at;
          EXPECT_TRUE(files_named(table, version, "remove").empty()) << at;
          auto added = files_named(table, version, "add");
          EXPECT_EQ(differing(con, "SELECT id, amount, note, 'insert' FROM read_parquet(" + parquet_list(added) + ")",
                              "SELECT * FROM expected"), 0) << at;
        } else {
          with_changes++;
          EXPECT_EQ(cdc.size(), 1u) << at;
          EXPECT_EQ(differing(con, "SELECT id, amount, note, _change_type FROM read_parquet(" + parquet_list(cdc) + ")",
                              "SELECT * FROM expected"), 0) << at;
          for (const auto& path : cdc) EXPECT_NE(path.find("/_change_data/"), std::string::npos) << path;
        }
      }
      delta::Snapshot last = delta::load_snapshot(table);
      EXPECT_GE(last.min_writer_version, 4);
      if (vectors) {
        EXPECT_NE(std::find(last.writer_features.begin(), last.writer_features.end(), "changeDataFeed"), last.writer_features.end());
      }
      auto lines = checked(con, table);
      ASSERT_EQ(lines.size(), 1u);
      EXPECT_EQ(lines[0].verdict, "ok") << lines[0].text;
      testing::expect_other_readers_accept(table);
    }
  EXPECT_GT(with_changes, 0);
  EXPECT_GT(inserts_only, 0);
}

class ChangeDataFeedTable : public delta::fixtures::TableTest {};

// A commit of lakestream's that would take rows out of a table with the feed on without saying
// which is refused with nothing written; another engine's whole-file delete without cdc files is
// a valid feed (the removed file's rows are the deletes); a change data file that lost a row
// makes check's replay fail.
TEST_F(ChangeDataFeedTable, ACommitThatHidesItsChangesIsRefusedAndCheckFindsOne) {
  create_table(con, table, "SELECT i::BIGINT AS id, 1.0::DOUBLE AS amount, 'a' AS note FROM range(100) t(i)", false);
  delta::Snapshot snapshot = delta::load_snapshot(table);
  EXPECT_EQ(snapshot.min_reader_version, 1);
  EXPECT_EQ(snapshot.min_writer_version, 4);
  {
    delta::Commit commit(snapshot);
    commit.remove(snapshot.files[0]);
    try {
      commit.publish();
      ADD_FAILURE() << "a remove without change data was committed";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("has the change data feed on"), std::string::npos) << e.what();
    }
    EXPECT_EQ(delta::latest_version(table), 0);
  }
  // A removal with dataChange = false (a compaction) changes no row and needs none.
  {
    delta::Commit commit(snapshot);
    commit.remove(snapshot.files[0], false);
    delta::AddFile again = snapshot.files[0];
    again.data_change = false;
    commit.add(again);
    EXPECT_NO_THROW(commit.publish());
  }
  auto ok = checked(con, table);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].verdict, "ok") << ok[0].text;
  EXPECT_EQ(ok[0].text, "t's change data feed (versions 0-1, 100 changes) replays to its rows");

  // A merge writes its changes; then one of its change rows goes missing.
  con.exec("CREATE TABLE incoming_last AS SELECT 7::BIGINT AS id, 2.0::DOUBLE AS amount, 'b' AS note");
  delta::Snapshot before = delta::load_snapshot(table);
  delta::Commit merge(before);
  upsert_rows(con, table, merge, before, "(SELECT id, amount, note FROM incoming_last)", {"id"}, "false", columns());
  int64_t version = merge.publish();
  auto cdc = files_named(table, version, "cdc");
  ASSERT_EQ(cdc.size(), 1u);
  EXPECT_EQ(checked(con, table).at(0).verdict, "ok");
  std::filesystem::copy_file(cdc[0], cdc[0] + ".whole");
  con.exec("COPY (SELECT * FROM read_parquet(" + sql::quote_literal(cdc[0] + ".whole") + ") WHERE _change_type <> 'update_preimage') TO " +
           sql::quote_literal(cdc[0]) + " (FORMAT parquet)");
  auto lost = checked(con, table);
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].verdict, "PROBLEM");
  EXPECT_EQ(lost[0].text, "t's change data feed (versions 0-2) does not replay to its rows: 1 row is there another number of times than the feed says");

  // The change row put back; then another engine deletes a whole file without cdc files.
  std::filesystem::rename(cdc[0] + ".whole", cdc[0]);
  EXPECT_EQ(checked(con, table).at(0).verdict, "ok");
  delta::Snapshot now = delta::load_snapshot(table);
  testing::write_text(commit_file(table, now.version + 1),
                      "{\"commitInfo\":{\"operation\":\"DELETE\",\"engineInfo\":\"Apache-Spark/3.5.3 Delta-Lake/3.3.0\"}}\n"
                      "{\"remove\":{\"path\":\"" + now.files[0].path + "\",\"deletionTimestamp\":1,\"dataChange\":true}}\n");
  auto deleted = checked(con, table);
  ASSERT_EQ(deleted.size(), 1u);
  EXPECT_EQ(deleted[0].verdict, "ok") << deleted[0].text;

  // Vacuum deletes the change data files with the data files no kept version needs; the commits
  // stay in the log, and check says it cannot replay them rather than calling the feed broken.
  delta::VacuumPlan plan = delta::plan_vacuum(table, 0, std::nullopt, /*unsafe_retention=*/true);
  EXPECT_NE(std::find(plan.data_files.begin(), plan.data_files.end(), cdc[0].substr(table.size() + 1)), plan.data_files.end());
  delta::run_vacuum(plan);
  EXPECT_FALSE(std::filesystem::exists(cdc[0]));
  auto vacuumed = checked(con, table);
  ASSERT_EQ(vacuumed.size(), 1u);
  EXPECT_EQ(vacuumed[0].verdict, "note") << vacuumed[0].text;
  EXPECT_EQ(vacuumed[0].text, "t's change data feed is not checked: vacuum has deleted files that every version of it in the log needs");
}

// Tables Spark wrote with the feed on (delta-kernel-rs's test tables: updates and deletes with cdc
// files, whole-file and deletion-vector deletes without, OPTIMIZE, a MERGE, partitions, column
// mapping turned on before the feed): read as PROTOCOL.md's readers read the feed, each gives
// what delta-kernel-rs's own tests expect of it, row for row; check replays each to its rows;
// and a lakestream merge into each keeps its feed whole.
TEST(ChangeDataFeed, TablesSparkWroteGiveTheFeedDeltaKernelExpects) {
  struct Table {
    std::string name;
    int64_t from;  // delta-kernel-rs reads the column-mapped one from version 1, where its feed begins
    bool partitioned;
  };
  for (const Table& t : {Table{"cdf-table-non-partitioned", 0, false}, Table{"cdf-table-with-cdc-and-dvs", 0, false},
                         Table{"cdf-table-partitioned", 0, true}, Table{"cdf-table-delete-conditional-two-rows", 0, false},
                         Table{"cdf-column-mapping-name-mode", 1, false}}) {
    SCOPED_TRACE(t.name);
    testing::TempDir dir;
    std::string table = dir / "t";
    std::filesystem::copy(testing::source_dir() + "/tests/data/delta-kernel/cdf/" + t.name, table, std::filesystem::copy_options::recursive);
    sql::Database db;
    sql::Connection con(db);
    delta::Snapshot snapshot = delta::load_snapshot(table);
    // As text on both sides: their CSV has an empty cell for a null.
    std::string expected_file = testing::source_dir() + "/tests/data/delta-kernel/cdf/" + t.name + ".expected.csv";
    con.exec("CREATE OR REPLACE TABLE expected AS SELECT * FROM read_csv(" + sql::quote_literal(expected_file) +
             ", header = true, all_varchar = true)");
    std::string as_text;
    for (const auto& name : con.query("SELECT column_name FROM (DESCRIBE expected)").rows)
      as_text += (as_text.empty() ? "" : ", ") + ("coalesce(" + sql::quote_ident(*name[0]) + "::VARCHAR, '')");
    std::string ours = "SELECT " + as_text + " FROM (" + change_feed_sql(snapshot, t.from) + ")";
    EXPECT_EQ(differing(con, ours, "SELECT " + as_text + " FROM expected"), 0)
        << con.query("(" + ours + ") EXCEPT ALL (SELECT " + as_text + " FROM expected)").size() << " of ours not expected";
    auto lines = checked(con, table);
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0].verdict, "ok") << lines[0].text;
    if (t.partitioned) continue;  // a merge writes an unpartitioned table
    // A merge of two rows, one an existing id (1, or 0 where the table has no 1), one new.
    sql::Rows schema = con.query("SELECT column_name FROM (DESCRIBE t)");
    std::string incoming = "SELECT * REPLACE (id + 1000 AS id) FROM t WHERE id = (SELECT min(id) FROM t) UNION ALL "
                           "SELECT * FROM t WHERE id = (SELECT max(id) FROM t)";
    con.exec("CREATE OR REPLACE TABLE incoming_last AS " + incoming);
    delta::Commit merge(snapshot);
    upsert_rows(con, table, merge, snapshot, "incoming_last", {"id"}, "false", snapshot.metadata.schema);
    int64_t version = merge.publish();
    EXPECT_EQ(files_named(table, version, "cdc").size(), 1u);
    auto after = checked(con, table);
    ASSERT_EQ(after.size(), 1u);
    EXPECT_EQ(after[0].verdict, "ok") << after[0].text;
    // The log, ours appended, by the validator (some of these tables' data files carry the feed's
    // columns, as the tool that made them wrote them, so their data is not compared).
    auto [status, report] = testing::run_other_readers(table, /*log_only=*/true);
    EXPECT_EQ(status, 0) << report;
  }
}

}  // namespace
}  // namespace lakestream
