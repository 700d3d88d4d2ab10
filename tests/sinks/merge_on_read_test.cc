// Merge-on-read: on a table with deletion vectors on, an upsert marks the rows it replaces in
// their files' vectors and writes only the incoming rows. Over generated batches (random keys,
// updates, inserts, deletes, a key several times), the table must hold after every batch exactly
// what a model in plain SQL holds (delete the incoming keys, insert the winners) and what the
// same upserts copy-on-write give; it must write only the batch's rows; and the vectors it
// writes must decode the same with roaring-wasm (CRoaring), which shares no code with ours.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "sinks/upsert.h"
#include "sql/duckdb.h"
#include "support/other_readers.h"
#include "support/test_support.h"
#include "table/compaction.h"
#include "table/deletion_vector.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream {
namespace {

std::vector<delta::Column> columns() { return {{"id", "long"}, {"amount", "double"}, {"note", "string"}}; }

// Creates the table with `first_rows`, in `files` files; with `vectors`, deletion vectors on.
void create_table(sql::Connection& con, const std::string& table, const std::string& first_rows, int files, bool vectors) {
  delta::Commit commit(delta::load_snapshot(table));
  delta::Metadata metadata;
  metadata.schema = columns();
  if (vectors) metadata.configuration["delta.enableDeletionVectors"] = "true";
  commit.set_metadata(metadata);
  for (int f = 0; f < files; f++)
    commit.add(delta::write_data_file(con, table, delta::Metadata{}, "SELECT * FROM (" + first_rows + ") WHERE id % " + std::to_string(files) +
                                                      " = " + std::to_string(f) + " ORDER BY id",
                                      columns()));
  commit.publish();
}

UpsertResult upsert(sql::Connection& con, const std::string& table) {
  delta::Snapshot snapshot = delta::load_snapshot(table);
  delta::Commit commit(snapshot);
  // The incoming rows: the newest per key wins (keep_existing false); op 'd' deletes its key.
  UpsertResult result = upsert_rows(con, table, commit, snapshot, "(SELECT id, amount, note FROM incoming_last)", {"id"},
                                    "false", columns(), "s.note = 'delete'");
  commit.publish();
  return result;
}

int64_t differing(sql::Connection& con, const std::string& a, const std::string& b) {
  return con.scalar_int("SELECT count(*) FROM ((" + a + " EXCEPT ALL " + b + ") UNION ALL (" + b + " EXCEPT ALL " + a + "))");
}

std::string rows_of(const std::string& table) {
  return "SELECT id, amount, note FROM (" + delta::scan_sql(delta::load_snapshot(table)) + ")";
}

// The serialized vector in a vector file, cut out by the protocol's framing (version byte, size
// big-endian, bytes, CRC).
std::string serialized_in(const std::string& file, int64_t offset) {
  std::string bytes = read_file(file);
  uint32_t size = 0;
  for (int i = 0; i < 4; i++) size = (size << 8) | static_cast<uint8_t>(bytes[offset + i]);
  return bytes.substr(offset + 4, size);
}

TEST(MergeOnRead, GivesWhatTheModelAndCopyOnWriteGiveAndWritesOnlyTheBatch) {
  int64_t purges = 0;
  for (uint32_t seed : {1u, 2u, 3u}) {
    testing::TempDir dir;
    std::string cow = dir / "cow", mor = dir / "mor";
    sql::Database db;
    sql::Connection con(db);
    std::mt19937 random(seed);
    const int keys = 3000;
    std::string first = "SELECT i::BIGINT AS id, (i * 1.5)::DOUBLE AS amount, 'v0' AS note FROM range(" +
                         std::to_string(keys) + ") t(i)";
    create_table(con, cow, first, 6, false);
    create_table(con, mor, first, 6, true);
    con.exec("CREATE TABLE model AS " + first);
    for (int batch = 1; batch <= 8; batch++) {
      // Random keys (old and new, some twice: the last wins), a tenth of them deletes.
      std::string values;
      int n = 1 + static_cast<int>(random() % 200);
      for (int i = 0; i < n; i++) {
        int64_t id = static_cast<int64_t>(random() % (keys + 500));
        std::string note = random() % 10 == 0 ? "delete" : "v" + std::to_string(batch);
        values += (values.empty() ? "" : ", ") + ("(" + std::to_string(id) + ", " + std::to_string(random() % 1000) +
                                                  ".25, '" + note + "', " + std::to_string(i) + ")");
      }
      con.exec("CREATE OR REPLACE TABLE incoming AS SELECT * FROM (VALUES " + values + ") t(id, amount, note, seq)");
      con.exec("CREATE OR REPLACE TABLE incoming_last AS SELECT id::BIGINT AS id, amount::DOUBLE AS amount, note FROM "
               "incoming QUALIFY row_number() OVER (PARTITION BY id ORDER BY seq DESC) = 1");
      con.exec("DELETE FROM model WHERE id IN (SELECT id FROM incoming_last)");
      con.exec("INSERT INTO model SELECT * FROM incoming_last WHERE note <> 'delete'");

      delta::Snapshot before = delta::load_snapshot(mor);
      upsert(con, cow);
      UpsertResult marked = upsert(con, mor);
      delta::Snapshot after = delta::load_snapshot(mor);
      EXPECT_EQ(differing(con, rows_of(mor), "SELECT * FROM model"), 0) << "seed " << seed << " batch " << batch;
      EXPECT_EQ(differing(con, rows_of(cow), "SELECT * FROM model"), 0) << "seed " << seed << " batch " << batch;
      // Only the batch's rows were written, and those of the files purged (a quarter or more
      // dead): at most one new data file. No file stays a quarter dead.
      EXPECT_LE(after.files.size(), before.files.size() + 1);
      int64_t written = con.scalar_int("SELECT count(*) FROM incoming_last WHERE note <> 'delete'");
      int64_t new_rows = 0;
      for (const auto& file : after.files) {
        if (file.version == after.version && !file.deletion_vector) new_rows += *file.live_rows();
        if (file.deletion_vector) {
          EXPECT_LT(file.deletion_vector->cardinality,
                    kPurgeDeletedShare * static_cast<double>(*file.live_rows() + file.deletion_vector->cardinality))
              << file.path;
        }
      }
      std::set<std::string> kept;
      for (const auto& file : after.files) kept.insert(file.path);
      int64_t dropped_rows = 0;
      for (const auto& file : before.files)
        if (!kept.count(file.path)) dropped_rows += *file.live_rows();
      purges += marked.files_rewritten;
      if (marked.files_rewritten == 0) {
        EXPECT_EQ(new_rows, written) << "seed " << seed << " batch " << batch;
      }
      EXPECT_GE(new_rows, written) << "seed " << seed << " batch " << batch;
      EXPECT_LE(new_rows, written + dropped_rows) << "seed " << seed << " batch " << batch;
    }
    // Every vector decodes alike with roaring-wasm.
    delta::Snapshot final_table = delta::load_snapshot(mor);
    nlohmann::json hex = nlohmann::json::array();
    std::vector<std::vector<uint64_t>> ours;
    for (const auto& file : final_table.files) {
      if (!file.deletion_vector) continue;
      std::string bytes = serialized_in(mor + "/" + delta::deletion_vector_file(*file.deletion_vector),
                                        *file.deletion_vector->offset);
      std::string text;
      for (unsigned char c : bytes) {
        static const char* digits = "0123456789abcdef";
        text.push_back(digits[c >> 4]);
        text.push_back(digits[c & 0xF]);
      }
      hex.push_back(text);
      ours.push_back(delta::deleted_rows(mor, *file.deletion_vector));
    }
    ASSERT_FALSE(ours.empty()) << "seed " << seed << ": no vectors written";
    testing::write_text(dir / "vectors.json", hex.dump());
    std::string command = "NODE_PATH=" + testing::source_dir() + "/.deps/npm/node_modules timeout 120 node " +
                          testing::source_dir() + "/tests/table/roaring_vectors.js decode " + dir / "vectors.json" + " " +
                          dir / "decoded.json";
    ASSERT_EQ(std::system(command.c_str()), 0);
    auto decoded = nlohmann::json::parse(read_file(dir / "decoded.json"));
    ASSERT_EQ(decoded.size(), ours.size());
    for (size_t i = 0; i < ours.size(); i++) {
      std::vector<uint64_t> theirs;
      for (const auto& row : decoded[i]) theirs.push_back(std::stoull(row.get<std::string>()));
      EXPECT_EQ(theirs, ours[i]);
    }
    testing::expect_other_readers_accept(mor);
    // Optimize purges the vectors and keeps the rows.
    delta::compact_table(con, mor, 1 << 30);
    for (const auto& file : delta::load_snapshot(mor).files) EXPECT_FALSE(file.deletion_vector);
    EXPECT_EQ(differing(con, rows_of(mor), "SELECT * FROM model"), 0) << "seed " << seed << " after optimize";
  }
  // The batches kill a quarter of some file now and then: the purge path was taken.
  EXPECT_GT(purges, 0);
}

// A fresh folder for one table, and DuckDB.
class MergeOnReadTable : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string table = dir / "t";
  sql::Database db;
  sql::Connection con{db};
};

TEST_F(MergeOnReadTable, ATableWithVectorsOnGetsTheirFeature) {
  create_table(con, table, "SELECT 1::BIGINT AS id, 1.0::DOUBLE AS amount, 'a' AS note", 1, true);
  delta::Snapshot snapshot = delta::load_snapshot(table);
  EXPECT_EQ(snapshot.min_reader_version, 3);
  EXPECT_EQ(snapshot.min_writer_version, 7);
  EXPECT_NE(std::find(snapshot.reader_features.begin(), snapshot.reader_features.end(), "deletionVectors"),
            snapshot.reader_features.end());
  EXPECT_NE(std::find(snapshot.writer_features.begin(), snapshot.writer_features.end(), "deletionVectors"),
            snapshot.writer_features.end());
}

// A stream given `deletion_vectors = true` on a table written copy-on-write until now: its first
// batch sets the property, raises the protocol and already merges on read (the decision follows
// the table as the commit leaves it, not as it was read).
TEST_F(MergeOnReadTable, TheBatchThatTurnsVectorsOnAlreadyMergesOnRead) {
  create_table(con, table, "SELECT i::BIGINT AS id, 1.0::DOUBLE AS amount, 'a' AS note FROM range(1000) t(i)", 1, false);
  con.exec("CREATE OR REPLACE TABLE incoming_last AS SELECT 7::BIGINT AS id, 2.0::DOUBLE AS amount, 'b' AS note");
  delta::Snapshot snapshot = delta::load_snapshot(table);
  delta::Commit commit(snapshot);
  delta::Metadata metadata = snapshot.metadata;
  metadata.configuration["delta.enableDeletionVectors"] = "true";
  commit.set_metadata(metadata);
  UpsertResult result = upsert_rows(con, table, commit, snapshot, "(SELECT id, amount, note FROM incoming_last)", {"id"},
                                    "false", columns());
  commit.publish();
  EXPECT_EQ(result.vectors_written, 1);
  EXPECT_EQ(result.files_rewritten, 0);
  delta::Snapshot after = delta::load_snapshot(table);
  EXPECT_EQ(after.min_writer_version, 7);
  ASSERT_EQ(after.files.size(), 2u);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + rows_of(table) + ") WHERE note = 'b'"), 1);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + rows_of(table) + ")"), 1000);
  testing::expect_other_readers_accept(table);
}

}  // namespace
}  // namespace lakestream
