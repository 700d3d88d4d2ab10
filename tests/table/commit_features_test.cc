// The writer features of tables as Databricks makes them today, on a table built here the way
// Spark writes one (its log written line by line): in-commit timestamps (commitInfo first, with an
// inCommitTimestamp later than the previous commit's whatever the clock says), domain metadata
// (kept, and carried into checkpoints, which a reader then starts from) and liquid clustering
// (stats on the clustering columns, never partitioned). Features lakestream cannot honour (row
// tracking, catalog-managed tables) are refused by name. The validator checks every commit.
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
  // `writer_features`, the metadata, two domains and one data file of ids 1..10.
  void create(int64_t first_timestamp, std::vector<std::string> writer_features) {
    AddFile file = write_data_file(con, table, "SELECT i::BIGINT AS id, 'v0' AS note FROM range(1, 11) t(i)", columns);
    Protocol protocol{3, 7, {"deletionVectors", "v2Checkpoint"}, std::move(writer_features)};
    Metadata metadata;
    metadata.id = "3c2b9f0e-5d7f-4e57-9d1a-7a7f3e0b6c11";
    metadata.schema = columns;
    metadata.created_time = first_timestamp;
    metadata.configuration = {{"delta.enableInCommitTimestamps", "true"}, {"delta.enableDeletionVectors", "true"}};
    nlohmann::json info = {{"timestamp", first_timestamp}, {"inCommitTimestamp", first_timestamp},
                           {"operation", "CREATE TABLE"}, {"engineInfo", "Databricks-Runtime/16.4"}};
    std::string text = nlohmann::json{{"commitInfo", info}}.dump() + "\n" + protocol_action(protocol).dump() + "\n" +
                       metadata_action(metadata).dump() + "\n" + domain_metadata_action("delta.clustering", kClustering).dump() +
                       "\n" + domain_metadata_action("shop.app", "{\"owner\":\"ops\"}").dump() + "\n" + add_action(file).dump() + "\n";
    make_dirs(log_dir(table));
    write_file_atomic(commit_file_path(table, 0), text);
  }

  int64_t append(int64_t first_id) {
    Commit commit(load_snapshot(table));
    commit.add(write_data_file(con, table, "SELECT i::BIGINT AS id, 'new' AS note FROM range(" + std::to_string(first_id) +
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

TEST_F(CommitFeatures, FeaturesItCannotHonourAreRefusedByName) {
  for (const char* feature : {"rowTracking", "catalogManaged"}) {
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
