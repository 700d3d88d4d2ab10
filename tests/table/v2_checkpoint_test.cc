// v2 checkpoints (the v2Checkpoint feature: liquid-clustered tables and Databricks' managed
// tables have them): Spark's UUID-named checkpoints, Parquet and JSON, with their sidecars, read
// alone (the commits before them gone) as Spark's rows; a missing sidecar is an error, never a
// table with fewer files; and the checkpoints lakestream writes to such a table follow the v2
// spec (a checkpointMetadata action) and read back alone.
#include <gtest/gtest.h>

#include <filesystem>

#include "sql/duckdb.h"
#include "support/error_of.h"
#include "support/golden_table_copy.h"
#include "support/other_readers.h"
#include "support/test_support.h"
#include "table/log_files.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

class V2Checkpoint : public ::testing::TestWithParam<std::string>, public testing::GoldenTableCopy {
 protected:
  void SetUp() override { copy_case(GetParam()); }

  // Removes the JSON commits at or below `version`: a reader must start from the checkpoint.
  void drop_commits_through(int64_t version) {
    for (int64_t v = 0; v <= version; v++) fs::remove(commit_file_path(table, v));
  }
};

TEST_P(V2Checkpoint, ReadsAloneAsSparksRows) {
  ASSERT_EQ(list_log(table).checkpoint_at_or_below(2), 2);
  drop_commits_through(2);
  Snapshot snapshot = load_snapshot(table);
  EXPECT_EQ(snapshot.version, 2);
  EXPECT_EQ(snapshot.files.size(), 4u) << "the adds are in the sidecars";
  expect_rows("SELECT * FROM " + expected);
}

TEST_P(V2Checkpoint, WithoutASidecarIsAnError) {
  drop_commits_through(2);
  fs::path sidecars = fs::path(table) / "_delta_log" / "_sidecars";
  fs::remove(fs::directory_iterator(sidecars)->path());
  std::string message = testing::error_of([&] { load_snapshot(table); });
  EXPECT_NE(message.find("sidecar"), std::string::npos) << message;
  EXPECT_NE(message.find("is missing"), std::string::npos) << message;
}

TEST_P(V2Checkpoint, TheCheckpointsLakestreamWritesFollowTheV2Spec) {
  // The table checkpoints every 2 commits: versions 3 and 4 make one at 4.
  std::string added;
  for (int v = 3; v <= 4; v++) {
    Snapshot snapshot = load_snapshot(table);
    Commit commit(snapshot);
    std::string rows = "SELECT " + std::to_string(1000 + v) + "::BIGINT AS id";
    commit.add(write_data_file(con, table, Metadata{}, rows, snapshot.metadata.schema));
    EXPECT_EQ(commit.publish(), v);
    added += " UNION ALL " + rows;
  }
  ASSERT_EQ(list_log(table).checkpoint_at_or_below(4), 4);
  std::string ours = table + "/_delta_log/00000000000000000004.checkpoint.parquet";
  ASSERT_TRUE(path_exists(ours));
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM read_parquet(" + sql::quote_literal(ours) +
                           ") WHERE checkpointMetadata.version = 4"), 1);
  // The log validator written from PROTOCOL.md and both Parquet readers accept the table, the
  // checkpoint compared with the replay of the commits.
  testing::expect_other_readers_accept(dir.path());
  drop_commits_through(4);
  expect_rows("SELECT * FROM " + expected + added);
}

INSTANTIATE_TEST_SUITE_P(Golden, V2Checkpoint, ::testing::Values("v2-checkpoint-parquet", "v2-checkpoint-json"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (auto& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace lakestream::delta
