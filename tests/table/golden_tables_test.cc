// delta-kernel-rs's golden tables (tests/data/golden, written by Spark): the cases that use only
// what lakestream implements (deletion vectors, v2 checkpoints and column mapping included) read
// back exactly the rows Spark wrote; the case that needs what it does not implement (an unknown
// protocol version) is refused with a message that names it, never read wrong.
#include <gtest/gtest.h>

#include <filesystem>

#include "sql/duckdb.h"
#include "support/error_of.h"
#include "support/test_support.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"

namespace lakestream::delta {
namespace {

std::string golden(const std::string& name) { return testing::test_data_dir() + "/golden/" + name; }

class GoldenTableRead : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenTableRead, GivesTheRowsSparkWrote) {
  std::string dir = golden(GetParam());
  Snapshot snapshot = load_snapshot(dir + "/delta");
  sql::Database db;
  sql::Connection con(db);
  std::string expected = "read_parquet(" + sql::quote_literal(dir + "/expected/*.parquet") + ")";
  std::string columns;
  for (const auto& column : snapshot.metadata.schema) columns += (columns.empty() ? "" : ", ") + sql::quote_ident(column.name);
  std::string actual_sel = "SELECT " + columns + " FROM (" + scan_sql(snapshot) + ")";
  std::string expected_sel = "SELECT " + columns + " FROM " + expected;
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + actual_sel + ")"), con.scalar_int("SELECT count(*) FROM " + expected));
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + actual_sel + " EXCEPT ALL " + expected_sel + ")"), 0)
      << "rows lakestream returned that Spark did not";
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + expected_sel + " EXCEPT ALL " + actual_sel + ")"), 0)
      << "rows Spark returned that lakestream did not";
}

INSTANTIATE_TEST_SUITE_P(
    Golden, GoldenTableRead,
    ::testing::Values("basic-decimal-table", "basic-with-inserts-deletes-checkpoint", "basic-with-inserts-merge",
                      "basic-with-inserts-updates", "basic-with-vacuum-protocol-check-feature",
                      "data-reader-array-primitives", "data-reader-date-types-utc", "data-reader-escaped-chars",
                      "data-reader-map", "data-reader-nested-struct", "data-reader-primitives",
                      "dv-partitioned-with-checkpoint", "log-replay-dv-key-cases",
                      "data-reader-timestamp_ntz", "decimal-various-scale-precision",
                      "kernel-timestamp-timestamp_micros", "log-replay-special-characters", "multi-part-checkpoint",
                      "only-checkpoint-files", "snapshot-data3", "snapshot-repartitioned",
                      "time-travel-schema-changes-b", "v2-checkpoint-json", "v2-checkpoint-parquet",
                      "table-with-columnmapping-mode-name", "data-reader-timestamp_ntz-name-mode",
                      "table-with-columnmapping-mode-id", "data-reader-timestamp_ntz-id-mode",
                      "dv-with-columnmapping"),
    [](const ::testing::TestParamInfo<std::string>& info) {
      std::string name = info.param;
      for (auto& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

struct Refused {
  std::string name;
  std::string because;  // what the message must say
};

class GoldenTableRefused : public ::testing::TestWithParam<Refused> {};

TEST_P(GoldenTableRefused, WithAMessageNamingTheFeature) {
  std::string message = testing::error_of([&] { load_snapshot(golden(GetParam().name) + "/delta"); });
  EXPECT_NE(message.find(GetParam().because), std::string::npos) << message;
}

INSTANTIATE_TEST_SUITE_P(
    Golden, GoldenTableRefused,
    ::testing::Values(Refused{"deltalog-invalid-protocol-version", "needs a Delta reader of version 99"}),
    [](const ::testing::TestParamInfo<Refused>& info) {
      std::string name = info.param.name;
      for (auto& c : name) if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

}  // namespace
}  // namespace lakestream::delta
