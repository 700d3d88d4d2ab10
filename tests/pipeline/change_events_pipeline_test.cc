// A Debezium source and a latest stream with deletes, as docs/pipeline-file.md shows them: the
// row's fields then the change's columns; the mistakes refused with file, line and key.
#include <gtest/gtest.h>

#include "pipeline/pipeline.h"
#include "support/error_of.h"
#include "support/test_support.h"
#include "util/files.h"

namespace lakestream {
namespace {

using testing::TempDir;
using testing::write_text;

// The configuration of docs/pipeline-file.md#change-data-capture-debezium.
std::string documented_change_pipeline() {
  std::string doc = read_file(testing::source_dir() + "/docs/pipeline-file.md");
  size_t section = doc.find("## Change data capture (Debezium)");
  EXPECT_NE(section, std::string::npos);
  size_t start = doc.find("```toml\n", section) + 8;
  return "[kafka]\nbootstrap = \"embedded\"\n" + doc.substr(start, doc.find("```", start) - start);
}

TEST(ChangeEventsPipeline, TheDocumentedConfigurationLoads) {
  TempDir dir;
  write_text(dir / "lakestream.toml", documented_change_pipeline());
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  const Source& source = p.sources.at(0);
  EXPECT_EQ(source.envelope, SourceEnvelope::Debezium);
  std::vector<std::string> fields;
  for (const auto& f : source.schema.fields) fields.push_back(f.name + " " + f.type_text());
  EXPECT_EQ(fields, (std::vector<std::string>{"id bigint", "name string", "email string", "_op string",
                                              "_source_ts_ms bigint", "_source_lsn bigint"}));
  const Stream& silver = p.streams.at(1);
  EXPECT_EQ(silver.deletes, "_op = 'd'");
  EXPECT_EQ(silver.deleted_table(), "customers_deleted");
  EXPECT_EQ(p.table_names(), (std::vector<std::string>{"bronze_customers", "bronze_customers_quarantine", "customers",
                                                       "customers_deleted"}));
}

TEST(ChangeEventsPipeline, DeletesRetentionIsADurationOrANumberInOrderBysUnits) {
  TempDir dir;
  auto retention_of = [&](const std::string& value) {
    std::string text = documented_change_pipeline();
    size_t at = text.find("deletes = ");
    text.insert(text.find('\n', at) + 1, "deletes_retention = " + value + "\n");
    write_text(dir / "lakestream.toml", text);
    return load_pipeline(dir / "lakestream.toml").streams.at(1).deletes_retention.value();
  };
  DeletesRetention days = retention_of("\"30 days\"");
  EXPECT_TRUE(days.is_duration);
  EXPECT_EQ(days.amount, 30 * 86'400'000'000LL);
  EXPECT_EQ(days.text, "30 days");
  EXPECT_EQ(deletes_retention_sql(days), "to_microseconds(2592000000000::BIGINT)");
  DeletesRetention lsn = retention_of("100000000");
  EXPECT_FALSE(lsn.is_duration);
  EXPECT_EQ(lsn.amount, 100000000);
  EXPECT_EQ(deletes_retention_sql(lsn), "100000000");
  EXPECT_GT(lsn.line, 0);
}

TEST(ChangeEventsPipeline, MistakesAreRefusedWithTheLineAndKey) {
  TempDir dir;
  auto refused = [&](const std::string& from, const std::string& to) {
    std::string text = documented_change_pipeline();
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    write_text(dir / "lakestream.toml", text);
    return testing::error_of([&] { load_pipeline(dir / "lakestream.toml"); });
  };
  EXPECT_NE(refused("envelope = \"debezium\"", "envelope = \"maxwell\"")
                .find("lakestream.toml:5: sources.customers.envelope: 'maxwell' is not an envelope; write \"debezium\""),
            std::string::npos);
  EXPECT_NE(refused("email = \"string\"", "_op = \"string\"")
                .find("sources.customers.schema: field '_op' is a column envelope = \"debezium\" adds"),
            std::string::npos);
  EXPECT_NE(refused("deletes = \"_op = 'd'\"", "deletes = \"  \"").find("streams.customers.deletes: is empty"),
            std::string::npos);
  EXPECT_NE(refused("source = \"customers\"", "source = \"customers\"\ndeletes = \"_op = 'd'\"")
                .find("streams.read_customers.deletes: is a setting of latest streams, not of ingest streams"),
            std::string::npos);
  const std::string deletes = "deletes = \"_op = 'd'\"";
  EXPECT_NE(refused(deletes, "deletes_retention = 1000")
                .find("streams.customers.deletes_retention: is set but deletes is not"),
            std::string::npos);
  for (const char* bad : {"\"a while\"", "\"0s\""})
    EXPECT_NE(refused(deletes, deletes + "\ndeletes_retention = " + bad)
                  .find("streams.customers.deletes_retention: '" + std::string(bad).substr(1, std::string(bad).size() - 2) +
                        "' is not a duration; write a duration for a timestamp order_by"),
              std::string::npos) << bad;
  for (const char* bad : {"-5", "0", "true", "1.5"})
    EXPECT_NE(refused(deletes, deletes + "\ndeletes_retention = " + bad)
                  .find("streams.customers.deletes_retention: must be a duration or a positive number"),
              std::string::npos) << bad;
  EXPECT_NE(refused("table = \"customers\"", "table = \"bronze_customers_quarantine\"")
                .find("already written by stream read_customers"),
            std::string::npos);
}

}  // namespace
}  // namespace lakestream
