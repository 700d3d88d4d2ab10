// The Iceberg view's rules that the shop does not reach: a table it cannot describe is refused
// with the reason and nothing committed, and a service writing a view per commit keeps the
// newest hundred (the reading side is proven by icebird and the validator: tests/shop/shop_iceberg_test.cc).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/error_of.h"
#include "table/column_mapping.h"
#include "table/iceberg_metadata.h"
#include "table/table_fixtures.h"

namespace lakestream::delta {
namespace {

using fixtures::TableTest;

// ids_metadata() with the Iceberg view asked for (column mapping by id, as the pipeline gives it).
Metadata iceberg_ids(const std::string& table) {
  Metadata wanted = fixtures::ids_metadata();
  wanted.configuration = {{kIcebergProperty, "true"}, {"delta.columnMapping.mode", "id"}};
  return with_column_mapping(wanted, std::nullopt, table);
}

class IcebergViews : public TableTest {
 protected:
  void append(int64_t id) {
    Snapshot snapshot = load_snapshot(table);
    Commit commit(snapshot);
    Metadata metadata = snapshot.exists() ? snapshot.metadata : iceberg_ids(table);
    if (!snapshot.exists()) commit.set_metadata(metadata);
    commit.add(write_data_file(con, table, metadata, "SELECT " + std::to_string(id) + "::BIGINT AS id", metadata.schema));
    commit.publish();
  }
  bool has_view(int64_t n) const { return std::filesystem::exists(table + "/metadata/v" + std::to_string(n) + ".metadata.json"); }
};

TEST_F(IcebergViews, EachCommitWritesItsViewAndTheNewestHundredStay) {
  for (int64_t i = 0; i < 250; i++) append(i);
  EXPECT_EQ(iceberg_metadata_version(table), 249);
  // At view 200 the views 1-100 went; 101-250 are there, each with its manifest and list.
  for (int64_t n : {1, 50, 100}) EXPECT_FALSE(has_view(n)) << n;
  for (int64_t n : {101, 200, 250}) {
    EXPECT_TRUE(has_view(n)) << n;
    EXPECT_TRUE(std::filesystem::exists(table + "/metadata/" + std::to_string(n) + "-m0.avro")) << n;
    EXPECT_TRUE(std::filesystem::exists(table + "/metadata/snap-" + std::to_string(n) + ".avro")) << n;
  }
  EXPECT_FALSE(std::filesystem::exists(table + "/metadata/snap-100.avro"));
  // Nothing to catch up: the newest view is the newest version's.
  EXPECT_FALSE(catch_up_iceberg_metadata(table));
}

TEST_F(IcebergViews, ATableTheViewCannotDescribeIsRefusedWithItsReason) {
  Metadata without_mapping = fixtures::ids_metadata();
  without_mapping.configuration[kIcebergProperty] = "true";
  EXPECT_NE(iceberg_unfit_reason(without_mapping).find("needs column mapping in id mode"), std::string::npos);

  Metadata nested = iceberg_ids(table);
  nested.schema.push_back({"tags", nlohmann::json{{"type", "array"}, {"elementType", "string"}, {"containsNull", true}}});
  nested = with_column_mapping(nested, iceberg_ids(table), table);
  EXPECT_NE(iceberg_unfit_reason(nested).find("column tags is of type"), std::string::npos);

  // Deletion vectors turned on for a table with the view: the commit is refused, nothing in.
  append(1);
  Snapshot snapshot = load_snapshot(table);
  Metadata with_vectors = snapshot.metadata;
  with_vectors.configuration["delta.enableDeletionVectors"] = "true";
  Commit commit(snapshot);
  commit.set_metadata(with_vectors);
  std::string error = testing::error_of([&] { commit.publish(); });
  EXPECT_NE(error.find("has Iceberg metadata (lakestream.iceberg = true), and after this"), std::string::npos) << error;
  EXPECT_NE(error.find("deletion vectors on"), std::string::npos) << error;
  EXPECT_EQ(latest_version(table), 0);
}

}  // namespace
}  // namespace lakestream::delta
