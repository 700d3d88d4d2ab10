// The small languages inside the pipeline file: field types, durations, ${VAR} references, and
// which Kafka properties are secrets.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pipeline/did_you_mean.h"
#include "pipeline/env_vars.h"
#include "pipeline/pipeline.h"
#include "support/test_support.h"
#include "util/error.h"

namespace lakestream {
namespace {

TEST(FieldType, EveryTypeHasItsThreeSpellings) {
  struct Case {
    const char* text;
    const char* type_text;
    const char* duckdb;
    const char* delta;
  };
  const Case cases[] = {
      {"bigint", "bigint", "BIGINT", "long"},
      {"int", "int", "INTEGER", "integer"},
      {"double", "double", "DOUBLE", "double"},
      {"boolean", "boolean", "BOOLEAN", "boolean"},
      {"string", "string", "VARCHAR", "string"},
      {"timestamp", "timestamp", "TIMESTAMPTZ", "timestamp"},
      {"decimal(18,2)", "decimal(18,2)", "DECIMAL(18,2)", "decimal(18,2)"},
      {" Decimal(38, 0) ", "decimal(38,0)", "DECIMAL(38,0)", "decimal(38,0)"},
  };
  for (const auto& c : cases) {
    auto field = parse_field_type("f", c.text);
    ASSERT_TRUE(field) << c.text;
    EXPECT_EQ(field->name, "f");
    EXPECT_EQ(field->type_text(), c.type_text);
    EXPECT_EQ(field->duckdb_type(), c.duckdb);
    EXPECT_EQ(field->delta_type(), c.delta);
  }
}

TEST(FieldType, AnythingElseIsRefused) {
  for (const char* text : {"money", "integer", "decimal", "decimal(0,0)", "decimal(39,2)", "decimal(5,6)",
                           "decimal(18)", "decimal(18,2", "decimal(a,b)", "decimal(18,2,1)", "", "timestamp(3)"}) {
    EXPECT_FALSE(parse_field_type("f", text)) << text;
  }
}

TEST(Duration, AcceptsTheUsualSpellings) {
  constexpr int64_t s = 1'000'000;
  EXPECT_EQ(parse_duration_us("500ms"), 500'000);
  EXPECT_EQ(parse_duration_us("90s"), 90 * s);
  EXPECT_EQ(parse_duration_us("90 seconds"), 90 * s);
  EXPECT_EQ(parse_duration_us("1 second"), s);
  EXPECT_EQ(parse_duration_us("15m"), 15 * 60 * s);
  EXPECT_EQ(parse_duration_us("15 minutes"), 15 * 60 * s);
  EXPECT_EQ(parse_duration_us("1h"), 3600 * s);
  EXPECT_EQ(parse_duration_us("1 hour"), 3600 * s);
  EXPECT_EQ(parse_duration_us("2 hours"), 7200 * s);
  EXPECT_EQ(parse_duration_us("1d"), 86400 * s);
  EXPECT_EQ(parse_duration_us("1 day"), 86400 * s);
  EXPECT_EQ(parse_duration_us("7 days"), 7 * 86400 * s);
  EXPECT_EQ(parse_duration_us("0s"), 0);
  EXPECT_EQ(parse_duration_us(" 10 minutes "), 600 * s);
}

TEST(Duration, RefusesWhatIsNotOne) {
  for (const char* text : {"", "hour", "1", "1.5h", "-1h", "1 hours", "2 hour", "1 fortnight", "1 H", "h1",
                           "99999999999999999999s", "9223372036854775807d", "1 hour 30 minutes"}) {
    EXPECT_FALSE(parse_duration_us(text)) << text;
  }
}

TEST(Secrets, PasswordsAndSecretsAreSecret) {
  for (const char* name : {"sasl.password", "ssl.key.password", "ssl.keystore.password", "ssl.truststore.password",
                           "sasl.oauthbearer.client.secret", "sasl.oauthbearer.config", "ssl.key.pem",
                           "plugin.api.secret", "my.PASSWORD.file"}) {
    EXPECT_TRUE(is_secret_property(name)) << name;
  }
  for (const char* name : {"sasl.username", "security.protocol", "sasl.mechanism", "bootstrap.servers", "acks"}) {
    EXPECT_FALSE(is_secret_property(name)) << name;
  }
}

TEST(EnvVars, ReplacesReferencesAndLeavesOtherDollarsAlone) {
  setenv("LAKESTREAM_TEST_A", "alpha", 1);
  setenv("LAKESTREAM_TEST_EMPTY", "", 1);
  ExpandedText out = expand_env_vars("$ConnectionString ${LAKESTREAM_TEST_A}-${LAKESTREAM_TEST_EMPTY}$ $5 {x}");
  EXPECT_EQ(out.problem, "");
  EXPECT_EQ(out.text, "$ConnectionString alpha-$ $5 {x}");
  unsetenv("LAKESTREAM_TEST_A");
  unsetenv("LAKESTREAM_TEST_EMPTY");
}

TEST(EnvVars, NamesWhatIsWrong) {
  unsetenv("LAKESTREAM_TEST_UNSET");
  EXPECT_EQ(expand_env_vars("x${LAKESTREAM_TEST_UNSET}").problem,
            "environment variable LAKESTREAM_TEST_UNSET is not set; export it before running lakestream");
  EXPECT_NE(expand_env_vars("${OPEN").problem.find("has no closing '}'"), std::string::npos);
  EXPECT_NE(expand_env_vars("${1ST}").problem.find("'${1ST}' is not a variable reference"), std::string::npos);
}

// A pipeline file's secrets come from the environment and never show in its errors.
TEST(EnvVars, PipelineFileSecretsComeFromTheEnvironmentAndStayOutOfErrors) {
  testing::TempDir dir;
  const std::string head =
      "[kafka]\nbootstrap = \"${LAKESTREAM_TEST_NAMESPACE}.servicebus.windows.net:9093\"\n[kafka.properties]\n"
      "\"sasl.username\" = \"$ConnectionString\"\n\"sasl.password\" = \"${LAKESTREAM_TEST_SECRET}\"\n"
      "\"enable.idempotence\" = true\n\"linger.ms\" = 5\n";
  const std::string body = "[sources.s.schema]\nx = \"int\"\n[streams.t]\nkind = \"ingest\"\nsource = \"s\"\ntable = \"t\"\n";
  setenv("LAKESTREAM_TEST_NAMESPACE", "shop", 1);
  setenv("LAKESTREAM_TEST_SECRET", "Endpoint=sb://shop/;SharedAccessKey=TOPSECRET", 1);

  testing::write_text(dir / "lakestream.toml", head + body);
  Pipeline p = load_pipeline(dir / "lakestream.toml");
  EXPECT_EQ(p.kafka.bootstrap, "shop.servicebus.windows.net:9093");
  using Property = std::pair<std::string, std::string>;
  EXPECT_EQ(p.kafka.properties, (std::vector<Property>{{"sasl.username", "$ConnectionString"},
                                                       {"sasl.password", "Endpoint=sb://shop/;SharedAccessKey=TOPSECRET"},
                                                       {"enable.idempotence", "true"},
                                                       {"linger.ms", "5"}}));

  testing::write_text(dir / "lakestream.toml", head + "\"sasl.jaas\" = { x = 1 }\n" + body);
  try {
    load_pipeline(dir / "lakestream.toml");
    FAIL() << "a table as a property value loaded";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("TOPSECRET"), std::string::npos) << e.what();
  }
  unsetenv("LAKESTREAM_TEST_NAMESPACE");
  unsetenv("LAKESTREAM_TEST_SECRET");
}

TEST(DidYouMean, SuggestsOnlyLikelyTypos) {
  EXPECT_EQ(did_you_mean("tabel", {"kind", "table", "source"}), "; did you mean 'table'?");
  EXPECT_EQ(did_you_mean("Table", {"kind", "table"}), "; did you mean 'table'?");
  EXPECT_EQ(did_you_mean("watermrk", {"watermark", "window"}), "; did you mean 'watermark'?");
  EXPECT_EQ(did_you_mean("colour", {"kind", "table"}), "");
  EXPECT_EQ(did_you_mean("x", {"y"}), "");
}

}  // namespace
}  // namespace lakestream
