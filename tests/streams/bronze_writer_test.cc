// Bronze's derived columns take the types their expressions have over the source's fields
// (streams/bronze_writer.h). The writer finds them once for a shape of the fields and keeps them;
// fields of another shape (a schema change) must be typed again, not given the kept types.
#include "streams/bronze_writer.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sql/duckdb.h"
#include "streams/ingest_stream.h"
#include "support/test_support.h"
#include "table/parquet_file.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

class BronzeWriterTest : public ::testing::Test {
 protected:
  BronzeWriterTest() {
    write_file_atomic(dir_ / "p.toml",
                      "[kafka]\nbootstrap = \"127.0.0.1:9\"\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n"
                      "[sources.orders]\ntopic = \"orders\"\n[sources.orders.schema]\nid = \"bigint\"\namount = \"double\"\n"
                      "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n"
                      "[streams.read_orders.derived]\nbucket = \"id % 10\"\ndoubled = \"amount * 2\"\n");
    pipeline_ = load_pipeline(dir_ / "p.toml");
  }

  // A batch's select as the writer builds it: bronze's columns (typed NULLs), then the derived ones.
  std::string select_for(const BronzeWriter& writer, const std::vector<delta::Column>& fields) {
    std::string select;
    for (const auto& column : bronze_columns(*pipeline_.find_source("orders"), fields))
      select += (select.empty() ? "SELECT " : ", ") + std::string("NULL::") + delta::duckdb_type_of(column.type) + " AS " +
                sql::quote_ident(column.name);
    return select + writer.derived_columns_sql();
  }

  // The derived columns' Delta types, by name, as the writer gives them for `fields`.
  std::map<std::string, std::string> derived_types(const BronzeWriter& writer, const std::vector<delta::Column>& fields) {
    std::map<std::string, std::string> types;
    for (const auto& column : writer.with_derived_columns(con_, select_for(writer, fields), fields))
      if (column.name == "bucket" || column.name == "doubled") types[column.name] = column.type.dump();
    return types;
  }

  TempDir dir_;
  Pipeline pipeline_;
  sql::Database db_;
  sql::Connection con_{db_};
};

TEST_F(BronzeWriterTest, DerivedColumnsAreTypedAgainWhenTheFieldsChange) {
  BronzeWriter writer(pipeline_, *pipeline_.find_stream("read_orders"), *pipeline_.find_source("orders"));
  std::vector<delta::Column> wide = {{"id", "long", true}, {"amount", "double", true}};
  std::vector<delta::Column> narrow = {{"id", "integer", true}, {"amount", "float", true}};
  std::map<std::string, std::string> from_wide = {{"bucket", "\"long\""}, {"doubled", "\"double\""}};
  std::map<std::string, std::string> from_narrow = {{"bucket", "\"integer\""}, {"doubled", "\"float\""}};
  EXPECT_EQ(derived_types(writer, wide), from_wide);
  EXPECT_EQ(derived_types(writer, wide), from_wide) << "kept for the same fields";
  EXPECT_EQ(derived_types(writer, narrow), from_narrow) << "other fields, other types";
  EXPECT_EQ(derived_types(writer, wide), from_wide) << "and back";
  // The order of the columns: bronze's, then the derived ones as declared.
  auto columns = writer.with_derived_columns(con_, select_for(writer, wide), wide);
  ASSERT_GE(columns.size(), 2u);
  EXPECT_EQ(columns[columns.size() - 2].name, "bucket");
  EXPECT_EQ(columns.back().name, "doubled");
}

TEST_F(BronzeWriterTest, ADerivedColumnThatNoLongerRunsIsRefusedNamingIt) {
  BronzeWriter writer(pipeline_, *pipeline_.find_stream("read_orders"), *pipeline_.find_source("orders"));
  std::vector<delta::Column> wide = {{"id", "long", true}, {"amount", "double", true}};
  ASSERT_EQ(derived_types(writer, wide).size(), 2u);
  // The fields lose `amount`: `doubled` no longer runs, and the kept types must not hide it.
  std::vector<delta::Column> without_amount = {{"id", "long", true}};
  try {
    writer.with_derived_columns(con_, select_for(writer, without_amount), without_amount);
    FAIL() << "a derived column over a missing field was typed";
  } catch (const Error& e) {
    std::string text = e.what();
    EXPECT_NE(text.find("doubled = \"amount * 2\""), std::string::npos) << text;
    EXPECT_NE(text.find("[streams.read_orders.derived]"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace lakestream::testing
