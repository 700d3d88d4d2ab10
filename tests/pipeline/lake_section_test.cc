// [lake] with tables on object stores: URLs as written, per-table locations, [lake.storage] with
// ${VAR} secrets, the cache; and the mistakes refused at file, line and key, saying what to set.
// The store credentials come only from what each test sets (the AWS profile files point into the
// test's own folder), so nothing outside it is read.
#include <gtest/gtest.h>

#include <cstdlib>

#include "pipeline/pipeline.h"
#include "support/test_support.h"
#include "util/error.h"

namespace lakestream {
namespace {

using testing::TempDir;
using testing::write_text;

// Lines 1-8; [lake] follows from line 9.
const char* kHead =
    "[kafka]\nbootstrap = \"embedded\"\n[sources.orders.schema]\norder_id = \"bigint\"\n"
    "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n";

class LakeSectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                             "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AZURE_STORAGE_CONNECTION_STRING",
                             "AZURE_STORAGE_ACCOUNT_NAME", "AZURE_STORAGE_ACCOUNT", "AZURE_STORAGE_ACCOUNT_KEY",
                             "AZURE_STORAGE_KEY", "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_ENDPOINT"})
      unsetenv(name);
    setenv("AWS_SHARED_CREDENTIALS_FILE", (dir / "no-aws-credentials").c_str(), 1);
    setenv("AWS_CONFIG_FILE", (dir / "no-aws-config").c_str(), 1);
  }
  void TearDown() override {
    unsetenv("LAKESTREAM_TEST_SECRET");
    unsetenv("AWS_SHARED_CREDENTIALS_FILE");
    unsetenv("AWS_CONFIG_FILE");
  }

  Pipeline load(const std::string& lake) {
    write_text(dir / "lakestream.toml", std::string(kHead) + lake);
    return load_pipeline(dir / "lakestream.toml");
  }
  std::string error_of(const std::string& lake) {
    try {
      load(lake);
    } catch (const Error& e) {
      return e.what();
    }
    return "(loaded)";
  }

  TempDir dir;
};

TEST_F(LakeSectionTest, TablesOnS3WithSettingsFromThePipelineFileAndTheEnvironment) {
  setenv("LAKESTREAM_TEST_SECRET", "s3cr3t-value", 1);
  Pipeline p = load(
      "[lake]\ntables = \"s3://shop-bucket/lake/\"\n"
      "[lake.storage]\nendpoint = \"http://127.0.0.1:4568\"\nregion = \"eu-west-1\"\npath_style = true\n"
      "access_key_id = \"AKIATEST\"\nsecret_access_key = \"${LAKESTREAM_TEST_SECRET}\"\npart_size = 5242880\n");
  EXPECT_EQ(p.tables_dir, "s3://shop-bucket/lake");
  EXPECT_EQ(p.table_path("bronze_orders"), "s3://shop-bucket/lake/bronze_orders");
  EXPECT_TRUE(p.has_remote_tables());
  EXPECT_EQ(p.storage.at("secret_access_key"), "s3cr3t-value");
  EXPECT_EQ(p.storage.at("path_style"), "true");
  EXPECT_EQ(p.storage.at("part_size"), "5242880");
  EXPECT_EQ(p.cache_dir, dir / "cache");
  EXPECT_EQ(p.cache_size_bytes, 10LL << 30);
}

TEST_F(LakeSectionTest, ATableCanLiveElsewhereAndTheCacheIsSet) {
  Pipeline p = load(
      "[lake]\ntables = \"lake\"\ncache = \"../scratch/cache\"\ncache_size = \"64 MiB\"\n"
      "[lake.storage]\naccount = \"devstoreaccount1\"\naccount_key = \"a2V5\"\n"
      "[lake.table_locations]\nbronze_orders = \"abfss://raw@devstoreaccount1.dfs.core.windows.net/shop/bronze\"\n"
      "bronze_orders_quarantine = \"file:///var/quarantine\"\n");
  EXPECT_EQ(p.tables_dir, dir / "lake");
  EXPECT_EQ(p.table_path("bronze_orders"), "abfss://raw@devstoreaccount1.dfs.core.windows.net/shop/bronze");
  EXPECT_EQ(p.table_path("bronze_orders_quarantine"), "/var/quarantine");
  EXPECT_EQ(p.table_path("other"), dir / "lake/other");
  EXPECT_TRUE(p.has_remote_tables());
  EXPECT_EQ(p.cache_size_bytes, 64LL << 20);
  EXPECT_NE(p.cache_dir.find("/scratch/cache"), std::string::npos);
}

TEST_F(LakeSectionTest, LocalTablesAreNotRemote) {
  Pipeline p = load("[lake]\ntables = \"file:///srv/lake\"\n");
  EXPECT_EQ(p.tables_dir, "/srv/lake");
  EXPECT_FALSE(p.has_remote_tables());
}

TEST_F(LakeSectionTest, MistakesNameFileLineKeyAndWhatToSet) {
  std::string e = error_of("[lake]\ntables = \"s3://shop-bucket/lake\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.tables: no S3 credentials for s3://shop-bucket/lake"), std::string::npos) << e;
  EXPECT_NE(e.find("AWS_ACCESS_KEY_ID"), std::string::npos) << e;

  e = error_of("[lake]\ntables = \"az://shop/lake\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.tables: no Azure storage account"), std::string::npos) << e;
  EXPECT_NE(e.find("AZURE_STORAGE_ACCOUNT_NAME"), std::string::npos) << e;

  e = error_of("[lake]\ntables = \"gs://shop/lake\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.tables: storage URL 'gs://shop/lake' has a scheme"), std::string::npos) << e;

  e = error_of("[lake]\n[lake.table_locations]\nbronze = \"s3://b/x\"\n");
  EXPECT_NE(e.find("lakestream.toml:11: lake.table_locations.bronze: no S3 credentials"), std::string::npos) << e;

  e = error_of("[lake]\n[lake.table_locations]\nbronze = \"elsewhere\"\n");
  EXPECT_NE(e.find("lakestream.toml:11: lake.table_locations.bronze: no stream of this file writes a table named bronze"),
            std::string::npos) << e;

  e = error_of("[lake]\ncache_size = \"lots\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.cache_size: 'lots' is not a size"), std::string::npos) << e;

  e = error_of("[lake]\ncache = \"s3://b/cache\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.cache: must be a local folder"), std::string::npos) << e;

  e = error_of("[lake.storage]\nsecret_key = \"x\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.storage.secret_key: unknown key"), std::string::npos) << e;

  e = error_of("[lake.storage]\naccount_key = \"${LAKESTREAM_TEST_SECRET}\"\n");
  EXPECT_NE(e.find("lakestream.toml:10: lake.storage.account_key: environment variable LAKESTREAM_TEST_SECRET is not set"),
            std::string::npos) << e;
}

TEST_F(LakeSectionTest, ASecretIsNeverInAnError) {
  // A wrong setting next to a secret: the message names keys and variables, never the value.
  setenv("LAKESTREAM_TEST_SECRET", "s3cr3t-value", 1);
  std::string e = error_of(
      "[lake]\ntables = \"s3://shop-bucket/lake\"\n"
      "[lake.storage]\nsecret_access_key = \"${LAKESTREAM_TEST_SECRET}\"\n");
  EXPECT_NE(e.find("lake.tables"), std::string::npos) << e;
  EXPECT_EQ(e.find("s3cr3t-value"), std::string::npos) << e;
}

}  // namespace
}  // namespace lakestream
