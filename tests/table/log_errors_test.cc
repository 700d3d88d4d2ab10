// What a reader says when the log is missing a commit, holds garbage, or needs a newer protocol.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "support/error_of.h"
#include "support/test_support.h"
#include "table_fixtures.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using lakestream::testing::error_of;

class LogErrors : public ::testing::Test {
 protected:
  void SetUp() override {
    fixtures::create_ids_table(con, table, "1");
    for (int i = 0; i < 2; i++) {
      Commit append(load_snapshot(table));
      append.add(fixtures::write_ids(con, table, std::to_string(i + 2)));
      append.publish();
    }
  }
  std::string log_file(int version) {
    char name[32];
    std::snprintf(name, sizeof name, "%020d.json", version);
    return table + "/_delta_log/" + name;
  }

  testing::TempDir dir;
  std::string table = dir / "t";
  sql::Database db;
  sql::Connection con{db};
};

TEST_F(LogErrors, MissingCommitIsNamed) {
  ::unlink(log_file(1).c_str());
  std::string message = error_of([&] { load_snapshot(table); });
  EXPECT_NE(message.find("00000000000000000001.json"), std::string::npos) << message;
  message = error_of([&] { read_commits(table, 0, 2); });
  EXPECT_NE(message.find("version 1"), std::string::npos) << message;
  // Version 0 alone still reads.
  EXPECT_EQ(fixtures::scanned_ids(con, load_snapshot(table, 0)), "1");
}

TEST_F(LogErrors, GarbledCommitIsNamedWithItsLine) {
  write_file_atomic(log_file(2), "{\"commitInfo\":{}}\n{\"add\": {\"path\": \"x.parquet\", trunc");
  std::string message = error_of([&] { load_snapshot(table); });
  EXPECT_NE(message.find("00000000000000000002.json: line 2"), std::string::npos) << message;
  EXPECT_NE(error_of([&] { read_commits(table, 2, 2); }).find("00000000000000000002.json"), std::string::npos);
  // An add without a path is malformed too, not silently skipped.
  write_file_atomic(log_file(2), "{\"add\": {\"size\": 3}}\n");
  message = error_of([&] { load_snapshot(table); });
  EXPECT_NE(message.find("add action has no path"), std::string::npos) << message;
}

// Writes version 0 of a table by hand, with the given protocol action and an id column.
void write_version_0(const std::string& table, const std::string& protocol) {
  nlohmann::json metadata = {
      {"metaData",
       {{"id", "x"},
        {"format", {{"provider", "parquet"}, {"options", nlohmann::json::object()}}},
        {"schemaString", R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]})"},
        {"partitionColumns", nlohmann::json::array()},
        {"configuration", nlohmann::json::object()}}}};
  testing::write_text(table + "/_delta_log/00000000000000000000.json", protocol + "\n" + metadata.dump() + "\n");
}

TEST(ProtocolCheck, NewerReaderVersionIsRefusedWithTheReason) {
  testing::TempDir dir;
  std::string table = dir / "dv";
  write_version_0(table,
                  R"({"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["variantType"],)"
                  R"("writerFeatures":["variantType"]}})");
  std::string message = error_of([&] { load_snapshot(table); });
  EXPECT_NE(message.find("uses the Delta reader feature(s) variantType, which lakestream does not implement"),
            std::string::npos) << message;
}

TEST(ProtocolCheck, NewerWriterVersionIsNotWrittenTo) {
  testing::TempDir dir;
  std::string table = dir / "w";
  write_version_0(table, R"({"protocol":{"minReaderVersion":1,"minWriterVersion":8}})");
  Snapshot snapshot = load_snapshot(table);  // readable: reader version 1
  EXPECT_EQ(snapshot.min_writer_version, 8);
  Commit commit(snapshot);
  std::string message = error_of([&] { commit.publish(); });
  EXPECT_NE(message.find("writer of version 8, newer than lakestream knows"), std::string::npos) << message;
  EXPECT_FALSE(path_exists(table + "/_delta_log/00000000000000000001.json"));
}

TEST(MissingTable, HasVersionMinusOne) {
  testing::TempDir dir;
  Snapshot snapshot = load_snapshot(dir / "nothing");
  EXPECT_FALSE(snapshot.exists());
  EXPECT_EQ(latest_version(dir / "nothing"), -1);
  EXPECT_THROW(load_snapshot(dir / "nothing", 0), Error);
}

}  // namespace
}  // namespace lakestream::delta
