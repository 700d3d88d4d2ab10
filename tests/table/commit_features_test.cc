// The writer features of tables as Databricks makes them today, on a table built here the way
// Spark writes one (its log written line by line): in-commit timestamps (commitInfo first, with an
// inCommitTimestamp later than the previous commit's whatever the clock says), domain metadata
// (kept, and carried into checkpoints, which a reader then starts from) and liquid clustering
// (stats on the clustering columns, never partitioned), and row tracking (fresh ids for new files,
// kept for rows left in place, rewrites refused while it is on). Features lakestream cannot
// honour (catalog-managed tables, identity columns) are refused by name. The validator checks
// every commit.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sql/duckdb.h"
#include "support/error_of.h"
#include "support/other_readers.h"
#include "support/test_support.h"
#include "table/table_fixtures.h"
#include "table/compaction.h"
#include "table/deletion_vector.h"
#include "table/delta_log_json.h"
#include "table/log_files.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

constexpr const char* kClustering = "{\"clusteringColumns\":[[\"id\"]]}";

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

class CommitFeatures : public fixtures::TableTest {
 protected:
  std::vector<Column> columns = {{"id", "long", true}, {"note", "string", true}};

  // Version 0 as Spark writes it: commitInfo first with `first_timestamp`, the protocol with
  // `writer_features`, the metadata (`properties` added), two domains and one data file of ids
  // 1..10 (with row tracking: row ids 0..9, and the high-water mark's domain).
  void create(int64_t first_timestamp, std::vector<std::string> writer_features,
              const std::map<std::string, std::string>& properties = {}) {
    AddFile file = write_data_file(con, table, Metadata{}, "SELECT i::BIGINT AS id, 'v0' AS note FROM range(1, 11) t(i)", columns);
    const bool row_tracking =
        std::find(writer_features.begin(), writer_features.end(), "rowTracking") != writer_features.end();
    if (row_tracking) {
      file.base_row_id = 0;
      file.default_row_commit_version = 0;
    }
    Protocol protocol{3, 7, {"deletionVectors", "v2Checkpoint"}, std::move(writer_features)};
    Metadata metadata;
    metadata.id = "3c2b9f0e-5d7f-4e57-9d1a-7a7f3e0b6c11";
    metadata.schema = columns;
    metadata.created_time = first_timestamp;
    metadata.configuration = {{"delta.enableInCommitTimestamps", "true"}, {"delta.enableDeletionVectors", "true"}};
    metadata.configuration.insert(properties.begin(), properties.end());
    nlohmann::json info = {{"timestamp", first_timestamp}, {"inCommitTimestamp", first_timestamp},
                           {"operation", "CREATE TABLE"}, {"engineInfo", "Databricks-Runtime/16.4"}};
    std::string text = nlohmann::json{{"commitInfo", info}}.dump() + "\n" + protocol_action(protocol).dump() + "\n" +
                       metadata_action(metadata).dump() + "\n" + domain_metadata_action("delta.clustering", kClustering).dump() +
                       "\n" + domain_metadata_action("shop.app", "{\"owner\":\"ops\"}").dump() + "\n" + add_action(file).dump() + "\n";
    if (row_tracking) text += domain_metadata_action("delta.rowTracking", "{\"rowIdHighWaterMark\":9}").dump() + "\n";
    make_dirs(log_dir(table));
    write_file_atomic(commit_file_path(table, 0), text);
  }

  int64_t append(int64_t first_id) {
    Commit commit(load_snapshot(table));
    commit.add(write_data_file(con, table, Metadata{}, "SELECT i::BIGINT AS id, 'new' AS note FROM range(" + std::to_string(first_id) +
                                               ", " + std::to_string(first_id + 5) + ") t(i)",
                               columns));
    return commit.publish();
  }

  nlohmann::json first_action(int64_t version) {
    std::ifstream in(commit_file_path(table, version));
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
  }

  static std::vector<std::string> all_features() {
    return {"deletionVectors", "v2Checkpoint", "inCommitTimestamp", "domainMetadata", "clustering"};
  }
};

TEST_F(CommitFeatures, InCommitTimestampsComeFirstAndOnlyGoForward) {
  // The table's last commit says a day from now (a writer whose clock was ahead): the next ones
  // must still be later than it, one millisecond at a time.
  const int64_t ahead = now_ms() + 24 * 3600 * 1000;
  create(ahead, all_features());
  for (int64_t version : {1, 2, 3}) {
    ASSERT_EQ(append(100 * version), version);
    nlohmann::json first = first_action(version);
    ASSERT_TRUE(first.contains("commitInfo")) << first;
    EXPECT_EQ(first["commitInfo"]["inCommitTimestamp"], ahead + version);
    EXPECT_EQ(first["commitInfo"]["timestamp"], ahead + version);
  }
  testing::expect_other_readers_accept(table);
}

TEST_F(CommitFeatures, InCommitTimestampsFollowTheClockWhenItIsAhead) {
  create(1'000, all_features());
  int64_t before = now_ms();
  ASSERT_EQ(append(100), 1);
  int64_t stamped = first_action(1)["commitInfo"]["inCommitTimestamp"].get<int64_t>();
  EXPECT_GE(stamped, before);
  EXPECT_LE(stamped, now_ms());
  ASSERT_EQ(append(200), 2);
  EXPECT_GT(first_action(2)["commitInfo"]["inCommitTimestamp"].get<int64_t>(), stamped);
  testing::expect_other_readers_accept(table);
}

TEST_F(CommitFeatures, DomainsAreKeptAndCarriedIntoCheckpoints) {
  create(now_ms(), all_features());
  for (int64_t i = 1; i <= 3; i++) append(100 * i);
  Snapshot snapshot = load_snapshot(table);
  EXPECT_EQ(snapshot.domains, (std::map<std::string, std::string>{{"delta.clustering", kClustering},
                                                                  {"shop.app", "{\"owner\":\"ops\"}"}}));
  write_checkpoint(table, 3);
  // The checkpoint holds the domains, as Spark's checkpoint schema has them.
  sql::Rows rows = con.query("SELECT domainMetadata.domain, domainMetadata.configuration, domainMetadata.removed FROM "
                             "read_parquet(" + sql::quote_literal(table + "/_delta_log/00000000000000000003.checkpoint.parquet") +
                             ") WHERE domainMetadata IS NOT NULL ORDER BY 1");
  ASSERT_EQ(rows.rows.size(), 2u);
  EXPECT_EQ(*rows.rows[0][0], "delta.clustering");
  EXPECT_EQ(*rows.rows[0][1], kClustering);
  EXPECT_EQ(*rows.rows[0][2], "false");
  testing::expect_other_readers_accept(table);
  // A reader that starts from the checkpoint alone finds them; the next commit keeps them.
  for (int64_t v = 0; v <= 3; v++) fs::remove(commit_file_path(table, v));
  EXPECT_EQ(load_snapshot(table).domains, snapshot.domains);
  ASSERT_EQ(append(500), 4);
  EXPECT_EQ(load_snapshot(table).domains, snapshot.domains);
  // A domain removed later is gone from the replay.
  std::string removal = "{\"commitInfo\":{\"timestamp\":" + std::to_string(now_ms() + 10'000) + ",\"inCommitTimestamp\":" +
                        std::to_string(now_ms() + 10'000) + "}}\n{\"domainMetadata\":{\"domain\":\"shop.app\",\"configuration\":\"\","
                        "\"removed\":true}}\n";
  write_file_atomic(commit_file_path(table, 5), removal);
  EXPECT_EQ(load_snapshot(table).domains, (std::map<std::string, std::string>{{"delta.clustering", kClustering}}));
}

TEST_F(CommitFeatures, AClusteredTableGetsStatsOnItsClusteringColumnsAndNoPartitions) {
  create(now_ms(), all_features());
  ASSERT_EQ(append(100), 1);
  Snapshot snapshot = load_snapshot(table);
  EXPECT_TRUE(snapshot.metadata.partition_columns.empty());
  for (const auto& file : snapshot.files) {
    auto stats = nlohmann::json::parse(file.stats);
    EXPECT_TRUE(stats["minValues"].contains("id") && stats["maxValues"].contains("id")) << file.stats;
  }
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + scan_sql(snapshot) + ")"), 15);
}

// Optimize on a clustered table writes the merged rows in the order of the clustering column:
// appends of interleaved ids come out as one file sorted by id, with tight stats.
TEST_F(CommitFeatures, OptimizeOrdersAClusteredTablesRowsByItsClusteringColumn) {
  create(now_ms(), all_features());
  for (int64_t first : {300, 100, 200}) append(first);
  ASSERT_GE(compact_table(con, table, 1 << 30).version, 4);
  Snapshot snapshot = load_snapshot(table);
  ASSERT_EQ(snapshot.files.size(), 1u);
  std::string file = sql::quote_literal(table + "/" + snapshot.files[0].path);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM read_parquet(" + file + ")"), 25);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (SELECT id, lag(id) OVER (ORDER BY file_row_number) AS before FROM "
                           "read_parquet(" + file + ", file_row_number = true)) WHERE before > id"),
            0)
      << "the rows are in id order";
}

// Row tracking, supported: every new file gets the next row ids and its commit's version, and the
// high-water mark goes up with them; a file added again with a deletion vector keeps its ids (its
// rows did not move); a compaction (row tracking not on) gives the merged rows fresh ids.
TEST_F(CommitFeatures, RowTrackingGivesNewFilesFreshIdsAndKeepsThoseOfRowsLeftInPlace) {
  auto features = all_features();
  features.push_back("rowTracking");
  create(now_ms(), features);
  auto mark = [&] {
    return nlohmann::json::parse(load_snapshot(table).domains.at("delta.rowTracking"))["rowIdHighWaterMark"].get<int64_t>();
  };
  ASSERT_EQ(append(100), 1);  // 5 rows
  Snapshot snapshot = load_snapshot(table);
  const AddFile* appended = nullptr;
  for (const auto& file : snapshot.files)
    if (file.version == 1) appended = &file;
  ASSERT_NE(appended, nullptr);
  EXPECT_EQ(appended->base_row_id, 10);
  EXPECT_EQ(appended->default_row_commit_version, 1);
  EXPECT_EQ(mark(), 14);

  // Merge-on-read of id 3 (row 2 of the first file): the file again with a vector, and the new row.
  const AddFile& first = snapshot.files.front();
  ASSERT_EQ(first.base_row_id, 0);
  Commit merge(snapshot);
  merge.remove(first);
  AddFile marked = first;
  marked.deletion_vector = write_deletion_vector(table, {2});
  merge.add(marked);
  merge.add(write_data_file(con, table, Metadata{}, "SELECT 3::BIGINT AS id, 'v2' AS note", columns));
  merge.set_operation("MERGE");
  ASSERT_EQ(merge.publish(), 2);
  snapshot = load_snapshot(table);
  for (const auto& file : snapshot.files) {
    if (file.path == first.path) {
      EXPECT_EQ(file.base_row_id, 0) << "rows left in place keep their ids";
      EXPECT_EQ(file.default_row_commit_version, 0);
    } else if (file.version == 2) {
      EXPECT_EQ(file.base_row_id, 15);
      EXPECT_EQ(file.default_row_commit_version, 2);
    }
  }
  EXPECT_EQ(mark(), 15);
  testing::expect_other_readers_accept(table);

  // Row tracking is supported, not on: a compaction may give the rows new ids.
  ASSERT_GE(compact_table(con, table, 1 << 30).version, 3);
  snapshot = load_snapshot(table);
  ASSERT_EQ(snapshot.files.size(), 1u);
  EXPECT_EQ(snapshot.files[0].base_row_id, 16);
  EXPECT_EQ(mark(), 16 + 15 - 1);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + scan_sql(snapshot) + ")"), 15);
  write_checkpoint(table, snapshot.version);
  testing::expect_other_readers_accept(table);
}

// Row tracking on (delta.enableRowTracking): rows must keep their ids through rewrites, which would
// need materialized id columns lakestream does not write. A compaction is refused with nothing
// committed, auto compaction leaves the table alone; appends and merge-on-read go on.
TEST_F(CommitFeatures, RowTrackingOnRefusesRewritesThatWouldMoveRows) {
  auto features = all_features();
  features.push_back("rowTracking");
  create(now_ms(), features, {{"delta.enableRowTracking", "true"}});
  ASSERT_EQ(append(100), 1);
  std::string error = testing::error_of([&] { compact_table(con, table, 1 << 30); });
  EXPECT_NE(error.find("row tracking on"), std::string::npos) << error;
  EXPECT_EQ(latest_version(table), 1);
  EXPECT_FALSE(table_auto_compaction(load_snapshot(table).metadata.configuration, AutoCompaction{}).has_value());
  ASSERT_EQ(append(200), 2);
  testing::expect_other_readers_accept(table);
}

TEST_F(CommitFeatures, FeaturesItCannotHonourAreRefusedByName) {
  for (const char* feature : {"catalogManaged", "variantType-preview"}) {
    fs::remove_all(table);
    auto features = all_features();
    features.push_back(feature);
    create(now_ms(), features);
    std::string error = testing::error_of([&] { append(100); });
    EXPECT_NE(error.find(feature), std::string::npos) << error;
    EXPECT_EQ(latest_version(table), 0) << "nothing was committed";
  }
}

}  // namespace
}  // namespace lakestream::delta
