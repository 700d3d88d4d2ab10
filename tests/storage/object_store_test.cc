// The object stores against real servers: a local folder, s3rver (S3's API) and Azurite
// (Azure Blob's), each written, read, listed across pages and deleted through the one interface;
// the Delta commit's put-if-absent raced on Azurite, which enforces If-None-Match; throttling
// and outages through a proxy that answers 503.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "storage/azure_store.h"
#include "storage/object_store.h"
#include "storage/s3_store.h"
#include "storage/storage_emulators.h"
#include "storage/storage_url.h"
#include "util/error.h"

namespace lakestream::testing {
namespace {

using storage::ObjectStore;
using storage::StoreKind;

TEST(StorageUrl, ReadsTheFormsUsersWrite) {
  auto s3 = storage::parse_storage_url("s3://my-bucket/lake/tables/");
  EXPECT_EQ(s3.kind, StoreKind::S3);
  EXPECT_EQ(s3.bucket, "my-bucket");
  EXPECT_EQ(s3.prefix, "lake/tables");
  auto abfss = storage::parse_storage_url("abfss://bronze@shopdata.dfs.core.windows.net/events");
  EXPECT_EQ(abfss.kind, StoreKind::Azure);
  EXPECT_EQ(abfss.bucket, "bronze");
  EXPECT_EQ(abfss.account, "shopdata");
  EXPECT_EQ(abfss.prefix, "events");
  auto https = storage::parse_storage_url("https://shopdata.blob.core.windows.net/bronze/a/b");
  EXPECT_EQ(https.kind, StoreKind::Azure);
  EXPECT_EQ(https.account, "shopdata");
  EXPECT_EQ(https.bucket, "bronze");
  EXPECT_EQ(https.prefix, "a/b");
  auto az = storage::parse_storage_url("az://bronze");
  EXPECT_EQ(az.kind, StoreKind::Azure);
  EXPECT_EQ(az.bucket, "bronze");
  EXPECT_EQ(az.prefix, "");
  EXPECT_EQ(storage::parse_storage_url("file:///data/lake").path, "/data/lake");
  EXPECT_EQ(storage::parse_storage_url("lake").kind, StoreKind::Local);
  EXPECT_FALSE(storage::is_object_store_url("lake"));
  EXPECT_TRUE(storage::is_object_store_url("s3://b/p"));
}

TEST(StorageUrl, RefusesWhatItCannotReadSayingWhatItTakes) {
  for (const char* bad : {"gs://bucket/x", "s3:///nobucket", "abfss://account.dfs.core.windows.net/x",
                          "https://example.com/x", "file://relative/path"}) {
    try {
      storage::parse_storage_url(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("s3://bucket/prefix"), std::string::npos) << e.what();
    }
  }
}

TEST(S3ConditionalPut, TheAnswersOfAStoreThatEnforcesIfNoneMatch) {
  // s3rver ignores If-None-Match, so the answers AWS S3, MinIO and R2 give are tested here.
  using storage::ConditionalPut;
  EXPECT_EQ(storage::interpret_conditional_put(200), ConditionalPut::Created);
  EXPECT_EQ(storage::interpret_conditional_put(412), ConditionalPut::Exists);
  EXPECT_EQ(storage::interpret_conditional_put(409), ConditionalPut::Retry);
  EXPECT_EQ(storage::interpret_conditional_put(403), ConditionalPut::Failed);
}

class EachStore : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    storage::StoreSettings small = {{"part_size", std::to_string(1 << 20)}, {"list_page_size", "2"}};
    if (GetParam() == "local") {
      store_ = storage::open_store(dir_ / "lake");
    } else if (GetParam() == "s3rver") {
      s3_ = std::make_unique<S3rver>();
      auto settings = s3_->settings();
      settings.insert(small.begin(), small.end());
      store_ = storage::open_store("s3://lake/tables", settings);
    } else {
      azurite_ = std::make_unique<Azurite>();
      azurite_->create_container("lake");
      auto settings = azurite_->settings();
      settings.insert(small.begin(), small.end());
      store_ = storage::open_store("abfss://lake@devstoreaccount1.dfs.core.windows.net/tables", settings);
    }
  }

  TempDir dir_;
  std::unique_ptr<S3rver> s3_;
  std::unique_ptr<Azurite> azurite_;
  std::unique_ptr<ObjectStore> store_;
};

TEST_P(EachStore, WritesReadsListsAcrossPagesAndDeletes) {
  EXPECT_FALSE(store_->get("orders/_delta_log/00000000000000000000.json").has_value());
  // Names as Delta writes them: partition folders with escaped values, a space, a colon.
  std::vector<std::string> keys = {"orders/_delta_log/00000000000000000000.json",
                                   "orders/_delta_log/00000000000000000001.json",
                                   "orders/dt=2026-10-01/part-00000-a.parquet", "orders/geo=a b:c/part-1.parquet",
                                   "orders_quarantine/_delta_log/00000000000000000000.json"};
  for (size_t i = 0; i < keys.size(); ++i) store_->put(keys[i], "content " + std::to_string(i));
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(store_->get(keys[i]).value_or("<none>"), "content " + std::to_string(i));
  // Pages of 2: the log's listing has to follow the continuation.
  auto log = store_->list("orders/_delta_log/");
  ASSERT_EQ(log.size(), 2u);
  EXPECT_EQ(log[0].key, "orders/_delta_log/00000000000000000000.json");
  EXPECT_EQ(log[1].key, "orders/_delta_log/00000000000000000001.json");
  EXPECT_EQ(log[0].size, 9);
  auto table = store_->list("orders/");
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[3].key, "orders/geo=a b:c/part-1.parquet");
  EXPECT_EQ(store_->list("orders").size(), 5u);  // a prefix, not a folder
  store_->remove("orders/dt=2026-10-01/part-00000-a.parquet");
  store_->remove("orders/no-such-file");
  EXPECT_EQ(store_->list("orders/").size(), 3u);
}

TEST_P(EachStore, LargeObjectsGoUpInPartsAndComeBackWhole) {
  std::string big;
  for (int i = 0; big.size() < (3u << 20) + 12345; ++i) big += "row " + std::to_string(i) + "\n";
  store_->put("orders/part-big.parquet", big);
  auto back = store_->get("orders/part-big.parquet");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->size(), big.size());
  EXPECT_TRUE(*back == big);
  EXPECT_EQ(store_->list("orders/part-big")[0].size, static_cast<int64_t>(big.size()));
}

// Not on s3rver: it ignores If-None-Match (AWS S3, MinIO and R2 enforce it); S3ConditionalPut
// tests the answers an enforcing S3 gives.
class EachConditionalStore : public EachStore {};

TEST_P(EachConditionalStore, PutIfAbsentKeepsTheFirstCommit) {
  EXPECT_TRUE(store_->put_if_absent("t/_delta_log/00000000000000000003.json", "first"));
  EXPECT_FALSE(store_->put_if_absent("t/_delta_log/00000000000000000003.json", "second"));
  EXPECT_EQ(store_->get("t/_delta_log/00000000000000000003.json").value_or(""), "first");
}

INSTANTIATE_TEST_SUITE_P(Stores, EachStore, ::testing::Values("local", "s3rver", "azurite"),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Stores, EachConditionalStore, ::testing::Values("local", "azurite"),
                         [](const auto& info) { return info.param; });

TEST(AzuriteCommit, OfWritersRacingForOneVersionExactlyOneWins) {
  Azurite azurite;
  azurite.create_container("lake");
  for (int round = 0; round < 5; ++round) {
    std::string key = "orders/_delta_log/0000000000000000000" + std::to_string(round) + ".json";
    std::atomic<int> wins{0};
    std::vector<std::string> contents(6);
    std::vector<bool> won(6);
    std::vector<std::thread> writers;
    for (int w = 0; w < 6; ++w) {
      writers.emplace_back([&, w] {
        auto store = storage::open_store("az://lake", azurite.settings());
        contents[w] = "writer " + std::to_string(w);
        won[w] = store->put_if_absent(key, contents[w]);
        if (won[w]) ++wins;
      });
    }
    for (auto& t : writers) t.join();
    EXPECT_EQ(wins.load(), 1) << key;
    auto store = storage::open_store("az://lake", azurite.settings());
    std::string there = store->get(key).value_or("");
    for (int w = 0; w < 6; ++w) {
      if (won[w]) {
        EXPECT_EQ(there, contents[w]) << "the winner's commit is the one kept";
      }
    }
  }
}

TEST(StoreFaults, ThrottlingIsRetriedWithBackoff) {
  Azurite azurite;
  azurite.create_container("lake");
  FlakyProxy proxy(azurite.port(), /*failures=*/3);
  auto settings = azurite.settings();
  settings["endpoint"] = "http://127.0.0.1:" + std::to_string(proxy.port()) + "/" + Azurite::kAccount;
  auto store = storage::open_store("az://lake", settings);
  store->put("a.json", "{}");  // the first three tries get 503
  EXPECT_EQ(store->get("a.json").value_or(""), "{}");
}

TEST(StoreFaults, AnOutageFailsCleanlyAndTheNextCallWorks) {
  S3rver s3;
  FlakyProxy down(s3.port(), /*failures=*/-1);
  auto settings = s3.settings();
  settings["endpoint"] = "http://127.0.0.1:" + std::to_string(down.port());
  settings["max_attempts"] = "3";
  auto store = storage::open_store("s3://lake", settings);
  try {
    store->put("a.json", "{}");
    ADD_FAILURE() << "a store that answers 503 to everything accepted a write";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("HTTP 503"), std::string::npos) << message;
    EXPECT_NE(message.find("s3://lake/a.json"), std::string::npos) << message;
  }
  auto direct = storage::open_store("s3://lake", s3.settings());
  direct->put("a.json", "{}");
  EXPECT_EQ(direct->get("a.json").value_or(""), "{}");
}

TEST(StoreFaults, AStoppedServerIsAnErrorNotAHang) {
  auto azurite = std::make_unique<Azurite>();
  azurite->create_container("lake");
  auto settings = azurite->settings();
  settings["max_attempts"] = "2";
  auto store = storage::open_store("az://lake", settings);
  store->put("a.json", "{}");
  azurite->stop();
  EXPECT_THROW(store->get("a.json"), Error);
}

TEST(StoreSecrets, AWrongKeyIsRefusedWithoutShowingAnyKey) {
  Azurite azurite;
  azurite.create_container("lake");
  auto settings = azurite.settings();
  std::string wrong = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2d3h5ejAxMjM0NTY3ODk=";
  settings["account_key"] = wrong;
  auto store = storage::open_store("az://lake", settings);
  try {
    store->put("a.json", "{}");
    ADD_FAILURE() << "a wrong key was accepted";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("403"), std::string::npos) << message;
    EXPECT_NE(message.find("AZURE_STORAGE_ACCOUNT_KEY"), std::string::npos) << message;
    EXPECT_EQ(message.find(wrong.substr(0, 12)), std::string::npos) << message;
    EXPECT_EQ(message.find(std::string(Azurite::kKey).substr(0, 12)), std::string::npos) << message;
  }
  S3rver s3;
  auto s3_settings = s3.settings();
  // s3rver checks the key id (not the signature): a wrong pair, as a user with a stale profile has.
  s3_settings["access_key_id"] = "AKIAWRONGKEYID";
  s3_settings["secret_access_key"] = "not-the-secret-at-all";
  auto s3_store = storage::open_store("s3://lake", s3_settings);
  try {
    s3_store->put("a.json", "{}");
    ADD_FAILURE() << "a wrong S3 secret was accepted";
  } catch (const Error& e) {
    std::string message = e.what();
    EXPECT_NE(message.find("403"), std::string::npos) << message;
    EXPECT_EQ(message.find("not-the-secret"), std::string::npos) << message;
  }
}

TEST(StoreCredentials, MissingCredentialsSayWhatToSet) {
  // Run with a clean environment for the variables the stores read.
  for (const char* var : {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE", "AZURE_STORAGE_ACCOUNT_KEY",
                          "AZURE_STORAGE_SAS_TOKEN", "AZURE_STORAGE_CONNECTION_STRING", "AZURE_STORAGE_KEY"})
    unsetenv(var);
  TempDir home;
  setenv("AWS_SHARED_CREDENTIALS_FILE", (home / "none").c_str(), 1);
  try {
    storage::open_store("s3://bucket/x");
    ADD_FAILURE() << "no credentials, yet the S3 store opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AWS_ACCESS_KEY_ID"), std::string::npos) << e.what();
  }
  try {
    storage::open_store("abfss://c@acct.dfs.core.windows.net/x");
    ADD_FAILURE() << "no credentials, yet the Azure store opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AZURE_STORAGE_ACCOUNT_KEY"), std::string::npos) << e.what();
  }
  // The AWS profile file, as the CLI writes it.
  write_text(home / "credentials", "[default]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = wJalr\n");
  setenv("AWS_SHARED_CREDENTIALS_FILE", (home / "credentials").c_str(), 1);
  EXPECT_NO_THROW(storage::open_store("s3://bucket/x"));
  unsetenv("AWS_SHARED_CREDENTIALS_FILE");
}

}  // namespace
}  // namespace lakestream::testing
