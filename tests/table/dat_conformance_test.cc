// The Delta Acceptance Tests (delta-incubator/dat): every Spark-written case table, read at every
// version the case lists, must give its version, protocol and rows exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"

namespace lakestream::delta {
namespace {

namespace fs = std::filesystem;

struct DatCase {
  std::string name;      // the case folder
  std::string expected;  // "latest" or "v<N>"
};

std::string dat_root() { return testing::test_data_dir() + "/dat"; }

std::vector<DatCase> all_cases() {
  std::vector<DatCase> cases;
  std::error_code ec;
  for (const auto& dir : fs::directory_iterator(dat_root(), ec)) {
    for (const auto& expected : fs::directory_iterator(dir.path() / "expected", ec))
      cases.push_back({dir.path().filename().string(), expected.path().filename().string()});
  }
  std::sort(cases.begin(), cases.end(),
            [](const DatCase& a, const DatCase& b) { return a.name + "/" + a.expected < b.name + "/" + b.expected; });
  return cases;
}

class DatConformance : public ::testing::TestWithParam<DatCase> {};

TEST_P(DatConformance, ReadsVersionProtocolAndRows) {
  const DatCase& c = GetParam();
  std::string case_dir = dat_root() + "/" + c.name;
  std::string expected_dir = case_dir + "/expected/" + c.expected;
  nlohmann::json info = nlohmann::json::parse(std::ifstream(expected_dir + "/table_version_metadata.json"));

  std::optional<int64_t> version;
  if (c.expected != "latest") version = std::stoll(c.expected.substr(1));
  Snapshot snapshot = load_snapshot(case_dir + "/delta", version);

  EXPECT_EQ(snapshot.version, info["version"].get<int64_t>());
  EXPECT_EQ(snapshot.min_reader_version, info["min_reader_version"].get<int>());
  EXPECT_EQ(snapshot.min_writer_version, info["min_writer_version"].get<int>());
  for (const auto& [key, value] : info["properties"].items()) EXPECT_EQ(snapshot.metadata.configuration[key], value.get<std::string>()) << key;

  sql::Database db;
  sql::Connection con(db);
  std::string expected_rel = "read_parquet(" + sql::quote_literal(expected_dir + "/table_content/*.parquet") + ")";
  std::string actual_rel = "(" + scan_sql(snapshot) + ")";

  // Columns matched by name: the table's schema names must be exactly the expected ones.
  sql::Rows expected_columns = con.query("DESCRIBE SELECT * FROM " + expected_rel);
  std::set<std::string> expected_names, actual_names;
  std::string column_list;
  for (size_t r = 0; r < expected_columns.size(); r++) {
    std::string name = expected_columns.text(r, "column_name");
    expected_names.insert(name);
    column_list += (column_list.empty() ? "" : ", ") + sql::quote_ident(name);
  }
  for (const auto& column : snapshot.metadata.schema) actual_names.insert(column.name);
  ASSERT_EQ(actual_names, expected_names);

  int64_t expected_count = con.scalar_int("SELECT count(*) FROM " + expected_rel);
  int64_t actual_count = con.scalar_int("SELECT count(*) FROM " + actual_rel);
  EXPECT_EQ(actual_count, expected_count);
  std::string actual_sel = "SELECT " + column_list + " FROM " + actual_rel + " AS a";
  std::string expected_sel = "SELECT " + column_list + " FROM " + expected_rel;
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + actual_sel + " EXCEPT ALL " + expected_sel + ")"), 0)
      << "rows the reader returned that Spark did not";
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + expected_sel + " EXCEPT ALL " + actual_sel + ")"), 0)
      << "rows Spark returned that the reader did not";
}

INSTANTIATE_TEST_SUITE_P(Dat, DatConformance, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<DatCase>& info) {
                           return info.param.name + "_" + info.param.expected;
                         });

TEST(DatConformanceData, IsThere) {
  // An empty data folder would pass every test above by having none.
  EXPECT_GE(all_cases().size(), 19u) << "no DAT cases found under " << dat_root();
}

}  // namespace
}  // namespace lakestream::delta
