// Checkpoints on an object store (Azurite and s3rver, real emulators): the store is the truth and
// the local folder only a working copy, so a stream whose working copy is lost (it moved to
// another machine) goes on exactly once; and a crash at every point, with the working copy lost
// after it, changes nothing.
#include <cstdlib>
#include <map>
#include <memory>
#include <set>

#include "faults/messy_lake.h"
#include "storage/storage_emulators.h"
#include "table/delta_table.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

// An emulator, the URL of the checkpoints on it, and the variables that reach it.
struct CheckpointStore {
  std::unique_ptr<Azurite> azurite;
  std::unique_ptr<S3rver> s3;
  std::string url;
  std::vector<std::string> env;
  storage::StoreSettings settings;

  explicit CheckpointStore(const std::string& kind) {
    if (kind == "azurite") {
      azurite = std::make_unique<Azurite>();
      azurite->create_container("lake");
      url = "az://lake/checkpoints";
      env = {"AZURE_STORAGE_ACCOUNT_NAME=" + std::string(Azurite::kAccount),
             "AZURE_STORAGE_ACCOUNT_KEY=" + std::string(Azurite::kKey), "AZURE_STORAGE_ENDPOINT=" + azurite->endpoint()};
      settings = azurite->settings();
    } else {
      s3 = std::make_unique<S3rver>();
      url = "s3://lake/checkpoints";
      env = {"AWS_ACCESS_KEY_ID=S3RVER", "AWS_SECRET_ACCESS_KEY=S3RVER", "AWS_REGION=us-east-1",
             "AWS_ENDPOINT_URL_S3=" + s3->endpoint()};
      settings = s3->settings();
    }
    // Every command checks the store's credentials when it loads the pipeline file (a query too),
    // so they are in this process's environment for all of them, as in a user's shell.
    for (const auto& variable : env) {
      auto eq = variable.find('=');
      setenv(variable.substr(0, eq).c_str(), variable.substr(eq + 1).c_str(), 1);
    }
  }
  ~CheckpointStore() {
    for (const auto& variable : env) unsetenv(variable.substr(0, variable.find('=')).c_str());
  }

  // The keys of stream `stream`'s checkpoint on the store.
  std::vector<std::string> keys(const std::string& stream) {
    std::vector<std::string> keys;
    for (const auto& object : storage::open_store(url, settings)->list(stream + "/")) keys.push_back(object.key);
    return keys;
  }
};

std::string pipeline_with_checkpoints_on(const std::string& url) {
  std::string toml = messy_pipeline();
  const std::string local = "checkpoints = \"checkpoints\"";
  size_t at = toml.find(local);
  EXPECT_NE(at, std::string::npos) << "the shop pipeline no longer sets [lake] checkpoints";
  if (at != std::string::npos) toml.replace(at, local.size(), "checkpoints = \"" + url + "\"");
  return toml;
}

// Loses the working copy of every checkpoint: the next run is as on another machine.
void lose_working_copy(MessyLake& lake) {
  std::string copy = lake.fixture().dir() + "/cache/checkpoints";  // in the [lake] cache folder
  ASSERT_TRUE(path_exists(copy)) << "the runs keep no working copy at " << copy;
  remove_all(copy);
}

class OnEachStore : public ::testing::TestWithParam<std::string> {};

TEST_P(OnEachStore, AStreamMovedToAnotherMachineGoesOnExactlyOnce) {
  MessyStream stream = messy_stream(20000, 6, 11);
  Reference reference = uninterrupted(stream);

  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  lake.play(stream, [&](int send) {
    if (send % 2 == 1) lose_working_copy(lake);  // every other run on a fresh machine
    lake.run_ok();
  });
  expect_same_as(reference, lake);

  // The checkpoint is on the store: its id, its plans, and one snapshot of the window state.
  std::set<std::string> records, snapshots;
  for (const auto& key : store.keys("hourly_sales")) (key.find("/state/") != std::string::npos ? snapshots : records).insert(key);
  EXPECT_TRUE(records.count("hourly_sales/metadata.json")) << "no metadata.json on the store";
  EXPECT_GT(records.size(), 1u) << "no planned batch on the store";
  EXPECT_EQ(snapshots.size(), 1u) << "older snapshots stay once a newer one is there";
  EXPECT_FALSE(store.keys("read_orders").empty());
}

// check and status on a machine that never ran the streams (no working copy) say what they say
// where the streams ran, replays included: they read the checkpoints on the store.
TEST_P(OnEachStore, CheckAndStatusOnAnotherMachineReadTheStore) {
  MessyStream stream = messy_stream(6000, 3, 4);
  Reference reference = uninterrupted(stream);
  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  lake.play(stream, [&](int) { lake.run_ok(); });
  // A replay is a stream of the pipeline too, wherever check runs.
  CommandResult replay =
      lake.fixture().lakestream("replay", {"hourly_sales", "--into", "hourly_sales_2h", "--watermark", "2 hours"}, store.env);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  CommandResult check_here = lake.check();
  ASSERT_NE(check_here.out.find("hourly_sales_2h"), std::string::npos) << check_here.out;
  CommandResult status_here = lake.fixture().lakestream("status", {}, store.env);
  lose_working_copy(lake);
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, check_here.exit_code) << check.err;
  EXPECT_EQ(check.out, check_here.out);
  CommandResult again =
      lake.fixture().lakestream("replay", {"hourly_sales", "--into", "hourly_sales_2h", "--watermark", "3 hours"}, store.env);
  EXPECT_NE(again.err.find("holds another replay"), std::string::npos) << again.out << again.err;
  // The progress log is the history of the machine that ran the batches; what is read and what
  // is left to read comes from the checkpoint and the tables, the same anywhere.
  CommandResult status = lake.fixture().lakestream("status", {}, store.env);
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(status.out.find("behind"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("Kafka lag 0 "), std::string::npos) << status.out;
  size_t caught_up = 0;
  for (size_t at = 0; (at = status.out.find("0 source versions not read yet", at)) != std::string::npos; at++) caught_up++;
  EXPECT_EQ(caught_up, 3u) << status.out;  // latest_orders, hourly_sales and the replay
  EXPECT_NE(status_here.out.find("0 source versions not read yet"), std::string::npos) << status_here.out;
}

// A kill in the middle of the state's upload, on a store that keeps what arrived of it as the
// object (s3rver does: measured, a PUT whose client died mid-body leaves its first bytes as the
// object). The next run, here or elsewhere, must not take that half file for the state: it runs
// the batch again from the snapshot before it (or from empty state at the first batch).
TEST_P(OnEachStore, AStateUploadCutShortIsNeverTakenForTheState) {
  MessyStream stream = messy_stream(20000, 4, 9);
  Reference reference = uninterrupted(stream);
  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  int cut_short = 0;
  lake.play(stream, [&](int send) {
    lake.run_ok({"read_orders", "latest_orders"});
    if (lake.run_with_fault("mid_state_upload:1", {"hourly_sales"})) {
      cut_short++;
      if (send % 2 == 0) lose_working_copy(lake);
    }
    lake.run_ok();
  });
  EXPECT_GT(cut_short, 1) << "no upload was cut short; the test proves nothing";
  expect_same_as(reference, lake);
  int snapshots = 0;
  for (const auto& key : store.keys("hourly_sales")) snapshots += key.find("/state/") != std::string::npos;
  EXPECT_EQ(snapshots, 1) << "the half snapshots are removed once a whole one is there";
}

// A kill in the middle of a record's upload (a batch's plan, or the first run's metadata), on a
// store that keeps what arrived: the next run here drops the half object and the working copy's
// whole file of it alike, and plans the batch again. Kept, the local plan ran a batch the store
// had no plan of, and once the working copy was lost the stream was stuck: its batch in the
// table, planned again, refused as another runner's (found by RandomKillsOnStore on s3rver).
TEST_P(OnEachStore, ARecordUploadCutShortIsPlannedAgainHereAndElsewhere) {
  MessyStream stream = messy_stream(6000, 6, 13);
  Reference reference = uninterrupted(stream);
  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  int cut_short = 0;
  lake.play(stream, [&](int send) {
    if (send % 2 == 1) lose_working_copy(lake);
    lake.run_ok({"read_orders"});
    // The stream's first upload of the run: its metadata on the first run, its plan after.
    cut_short += lake.run_with_fault("mid_record_upload:1", {"latest_orders"});
    lake.run_ok();  // here, with the working copy the killed run left
  });
  EXPECT_EQ(cut_short, static_cast<int>(stream.sends.size())) << "every latest_orders run plans a batch";
  expect_same_as(reference, lake);
  for (const auto& key : store.keys("latest_orders")) {
    if (key.find("/state/") != std::string::npos) continue;
    auto data = storage::open_store(store.url, store.settings)->get(key);
    ASSERT_TRUE(data.has_value()) << key;
    EXPECT_TRUE(!data->empty() && data->front() == '{') << key << " is a half record: " << *data;
  }
}

// A `lakestream replay` killed mid-upload of its record leaves half of it on such a store. No
// command may take it for a replay (every one read it as damaged), and the replay runs again.
TEST_P(OnEachStore, AReplayRecordCutShortIsWrittenAgain) {
  MessyStream stream = messy_stream(3000, 1, 2);
  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  lake.play(stream, [&](int) { lake.run_ok(); });
  const std::string record = R"({"into": "hourly_sales_2h", "stream": "hourly_sales", "watermarkDelayUs": 7200000000})";
  storage::open_store(store.url, store.settings)->put("_lakestream_replays/hourly_sales_2h.json", record.substr(0, record.size() / 2));
  lake.run_ok();
  CommandResult replay =
      lake.fixture().lakestream("replay", {"hourly_sales", "--into", "hourly_sales_2h", "--watermark", "2 hours"}, store.env);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto written = storage::open_store(store.url, store.settings)->get("_lakestream_replays/hourly_sales_2h.json");
  ASSERT_TRUE(written.has_value());
  EXPECT_NE(written->find("7200000000"), std::string::npos) << *written;
  lose_working_copy(lake);
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  EXPECT_NE(check.out.find("hourly_sales_2h"), std::string::npos) << check.out;
}

TEST(RemoteCheckpoint, KilledBetweenStateUploadAndTableCommitThenRunElsewhere) {
  MessyStream stream = messy_stream(20000, 4, 5);
  Reference reference = uninterrupted(stream);
  CheckpointStore store("azurite");
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  std::string gold = lake.fixture().dir() + "/lake/hourly_sales";
  int64_t emitted = 0;  // sends whose gold commit the crash held back
  lake.play(stream, [&](int) {
    lake.run_ok({"read_orders", "latest_orders"});
    int64_t version = delta::latest_version(gold);
    if (!lake.run_with_fault("after_state_upload:1", {"hourly_sales"})) {
      lake.run_ok();
      return;
    }
    EXPECT_EQ(delta::latest_version(gold), version) << "the crash came before the table commit";
    lose_working_copy(lake);
    lake.run_ok();
    if (delta::latest_version(gold) > version) emitted++;
  });
  EXPECT_GT(emitted, 0) << "no crash held back a batch with output; the test proves nothing";
  expect_same_as(reference, lake);
}

TEST_P(OnEachStore, EveryCrashPointWithTheWorkingCopyLostChangesNothing) {
  // A CI-sized round: one send per (point, stream kind), the working copy lost after every other crash.
  std::vector<std::string> points = crash_points();
  points.push_back("after_state_upload");
  points.push_back("mid_state_upload");
  const int combos = static_cast<int>(points.size() * stream_of_each_kind().size());
  // As many events per send as the local suite: ingest takes more than one batch per run, and
  // most window batches close windows, so that every point is passed.
  MessyStream stream = messy_stream(100000, combos, 7);
  Reference reference = uninterrupted(stream);

  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  std::map<std::string, std::set<std::string>> crashed_in;
  lake.play(stream, [&](int send) {
    const std::string& point = points[send % points.size()];
    const std::string& target = stream_of_each_kind()[send / points.size()];
    auto elsewhere = [&] {
      if (send % 2 == 0) lose_working_copy(lake);
    };
    // Not every batch quarantines a record: the first quarantine commit of the run, in whichever batch.
    int hit = point == "after_quarantine_commit" ? 1 : 0;
    if (crash_in(lake, point, target, hit, elsewhere)) crashed_in[point].insert(target);
  });
  expect_same_as(reference, lake);

  auto expected = streams_each_point_kills();
  expected["after_state_upload"] = {"hourly_sales"};  // checkpoints on a store upload the state
  expected["mid_state_upload"] = {"hourly_sales"};
  EXPECT_EQ(crashed_in, expected);
}

// A snapshot damaged after its upload succeeded (the older ones are gone by then) is refused
// with what to do, never replaced by an empty state that would count the windows again.
TEST_P(OnEachStore, ASnapshotDamagedAfterItsUploadIsRefused) {
  MessyStream stream = messy_stream(4000, 2, 3);
  CheckpointStore store(GetParam());
  MessyLake lake(pipeline_with_checkpoints_on(store.url), store.env);
  std::string gold = lake.fixture().dir() + "/lake/hourly_sales";
  int64_t version = -1;
  lake.play(stream, [&](int send) {
    lake.run_ok();
    if (send == 0) return;
    std::vector<std::string> snapshots;
    for (const auto& key : store.keys("hourly_sales"))
      if (key.find("/state/") != std::string::npos) snapshots.push_back(key);
    ASSERT_EQ(snapshots.size(), 1u);
    auto objects = storage::open_store(store.url, store.settings);
    std::string whole = *objects->get(snapshots[0]);
    objects->put(snapshots[0], whole.substr(0, whole.size() / 2));
    lose_working_copy(lake);
    version = delta::latest_version(gold);
  });
  CommandResult r = lake.fixture().lakestream("run", {"hourly_sales"}, store.env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("is damaged (its content is not what its name says)"), std::string::npos) << r.err;
  EXPECT_EQ(delta::latest_version(gold), version) << "nothing may be written from a state that is not the stream's";
}

INSTANTIATE_TEST_SUITE_P(Stores, OnEachStore, ::testing::Values("azurite", "s3rver"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace lakestream::testing
