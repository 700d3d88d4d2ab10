// Writing to tables Spark wrote with deletion vectors (delta-kernel-rs's golden tables, copied):
// appends, copy-on-write merges, checkpoints, optimize and vacuum keep every deleted row deleted
// and every live row live, as Spark's expected rows say; removes name the vector of the file they
// remove, as the protocol asks; a rewrite drops the deleted rows and leaves no vector behind; with
// the table's delta.enableDeletionVectors on, a merge marks the rows it replaces in the vector.
// After each write the Delta log validator written from PROTOCOL.md and the two independent
// Parquet readers (tests/interop) accept the table.
#include <gtest/gtest.h>

#include <filesystem>

#include "sinks/upsert.h"
#include "sql/duckdb.h"
#include "support/golden_table_copy.h"
#include "support/other_readers.h"
#include "support/test_support.h"
#include "table/compaction.h"
#include "table/deletion_vector.h"
#include "table/parquet_file.h"
#include "table/vacuum.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

class VectorTableWrite : public ::testing::Test, public testing::GoldenTableCopy {
 protected:
  void merge_into_key_cases(UpsertResult& result);

  static int files_with_vectors(const Snapshot& snapshot) {
    int n = 0;
    for (const auto& file : snapshot.files) n += file.deletion_vector ? 1 : 0;
    return n;
  }
};

TEST_F(VectorTableWrite, AnAppendKeepsTheDeletedRowsDeleted) {
  copy_case("dv-partitioned-with-checkpoint");
  Snapshot before = load_snapshot(table);
  ASSERT_GT(files_with_vectors(before), 0);
  std::string added = "SELECT 3::INTEGER AS part, 1000::INTEGER AS col1, 'new' AS col2";
  Commit commit(before);
  commit.add(write_data_file(con, table, Metadata{}, added, before.metadata.schema, {{"part", "3"}}));
  commit.publish();
  expect_rows("SELECT * FROM " + expected + " UNION ALL " + added);
  // And from a checkpoint of the new version: the vectors survive it.
  write_checkpoint(table, load_snapshot(table).version);
  for (const auto& entry : fs::directory_iterator(table + "/_delta_log"))
    if (entry.path().extension() == ".json") fs::remove(entry.path());
  EXPECT_EQ(files_with_vectors(load_snapshot(table)), files_with_vectors(before));
  expect_rows("SELECT * FROM " + expected + " UNION ALL " + added);
  testing::expect_other_readers_accept(dir.path());
}

// log-replay-dv-key-cases: ids 0..49 in one file, 3 of them deleted by a vector, and
// delta.enableDeletionVectors on. Incoming: a deleted id (comes back as new), a live id (replaced)
// and a new one.
void VectorTableWrite::merge_into_key_cases(UpsertResult& result) {
  Snapshot before = load_snapshot(table);
  ASSERT_EQ(files_with_vectors(before), 1);
  int64_t deleted_id = con.scalar_int("SELECT min(id) FROM range(50) AS r(id) WHERE id NOT IN (SELECT id FROM " + expected + ")");
  con.exec("CREATE TABLE incoming AS SELECT * FROM (VALUES (" + std::to_string(deleted_id) + "::BIGINT), (10), (100)) AS t(id)");
  Commit commit(before);
  result = upsert_rows(con, table, commit, before, "incoming", {"id"}, "false", before.metadata.schema);
  commit.publish();
  expect_rows("SELECT id FROM " + expected + " WHERE id NOT IN (SELECT id FROM incoming) UNION ALL SELECT id FROM incoming");
  // The file is removed with its old vector, whichever way the merge went.
  auto removes = read_commits(table, before.version + 1, before.version + 1).at(0).removes;
  ASSERT_EQ(removes.size(), 1u);
  ASSERT_TRUE(removes[0].deletion_vector);
  EXPECT_EQ(removes[0].deletion_vector->unique_id(), before.files[0].deletion_vector->unique_id());
  testing::expect_other_readers_accept(dir.path());
}

TEST_F(VectorTableWrite, AMergeMarksTheReplacedRowInTheFilesVector) {
  copy_case("log-replay-dv-key-cases");
  std::vector<uint64_t> deleted_before = deleted_rows(table, *load_snapshot(table).files[0].deletion_vector);
  UpsertResult result;
  merge_into_key_cases(result);
  EXPECT_EQ(result.files_rewritten, 0);
  EXPECT_EQ(result.vectors_written, 1);
  // The old file stays, its vector now marking the replaced id's row as well.
  Snapshot after = load_snapshot(table);
  ASSERT_EQ(files_with_vectors(after), 1);
  for (const auto& file : after.files) {
    if (!file.deletion_vector) continue;
    auto deleted = deleted_rows(table, *file.deletion_vector);
    EXPECT_EQ(deleted.size(), deleted_before.size() + 1);
    for (uint64_t row : deleted_before) EXPECT_TRUE(std::binary_search(deleted.begin(), deleted.end(), row));
  }
}

TEST_F(VectorTableWrite, AMergeWithVectorsOffRewritesWithoutTheDeletedRows) {
  copy_case("log-replay-dv-key-cases");
  Snapshot snapshot = load_snapshot(table);
  Metadata off = snapshot.metadata;
  off.configuration["delta.enableDeletionVectors"] = "false";  // as ALTER TABLE ... SET TBLPROPERTIES does
  Commit turn_off(snapshot);
  turn_off.set_metadata(off);
  turn_off.publish();
  UpsertResult result;
  merge_into_key_cases(result);
  EXPECT_EQ(result.files_rewritten, 1);
  EXPECT_EQ(files_with_vectors(load_snapshot(table)), 0);
}

TEST_F(VectorTableWrite, OptimizePurgesTheVectorsAndVacuumKeepsThemUntilThen) {
  copy_case("dv-partitioned-with-checkpoint");
  Snapshot before = load_snapshot(table);
  std::set<std::string> vector_files;
  for (const auto& file : before.files)
    if (file.deletion_vector) vector_files.insert(deletion_vector_file(*file.deletion_vector));
  ASSERT_FALSE(vector_files.empty());

  // Live files' vectors are never vacuumed, whatever the retention.
  for (const auto& doomed : plan_vacuum(table, 0, std::nullopt, true).data_files)
    EXPECT_FALSE(vector_files.count(doomed)) << doomed << " is the vector of a live file";

  auto result = compact_table(con, table, 1 << 30);
  EXPECT_GT(result.files_removed, 0);
  Snapshot after = load_snapshot(table);
  EXPECT_EQ(files_with_vectors(after), 0);
  expect_rows("SELECT * FROM " + expected);
  for (const auto& removed : read_commits(table, after.version, after.version).at(0).removes) {
    EXPECT_FALSE(removed.data_change);
    EXPECT_TRUE(removed.size);
  }
  // Once nothing live needs them, the vector files go with the files they belonged to.
  auto plan = plan_vacuum(table, 0, std::nullopt, true);
  std::set<std::string> doomed(plan.data_files.begin(), plan.data_files.end());
  for (const auto& file : vector_files) EXPECT_TRUE(doomed.count(file)) << file;
  run_vacuum(plan);
  expect_rows("SELECT * FROM " + expected);
  testing::expect_other_readers_accept(dir.path());
}

}  // namespace
}  // namespace lakestream::delta
