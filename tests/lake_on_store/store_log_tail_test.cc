// A table's log on a store keeps a commit per batch for delta.logRetentionDuration (30 days): a
// service committing every second would list millions of keys on every read if readers listed the
// whole log. From the `_last_checkpoint` hint on, the tail is listed ten versions at a time
// (table/log_files.cc): the same commits and checkpoint as the whole listing, in a few requests
// however long the log, whatever the hint (stale, naming what is not there, missing).
#include <chrono>
#include <functional>
#include <set>
#include <thread>

#include "lake_on_store/store_lake.h"
#include "storage/request_counts.h"
#include "table/checkpoint_reader.h"
#include "table/checkpoint_sidecars.h"
#include "table/delta_table.h"
#include "table/log_files.h"
#include "table/table_files.h"
#include "storage/object_store.h"
#include "table/vacuum.h"
#include "util/error.h"

namespace lakestream::testing {
namespace {

// Snapshots as a service takes them (remember_checkpoints), trusting the end of a table's log it
// found for `trust`; as a plain run again after.
struct AsAService {
  explicit AsAService(std::chrono::milliseconds trust) {
    delta::remember_checkpoints(true);
    delta::trust_log_end_for(trust);
  }
  ~AsAService() {
    delta::remember_checkpoints(false);
    delta::trust_log_end_for(std::chrono::milliseconds(200));
  }
};

class LogTailOnStore : public ::testing::TestWithParam<Emulator> {
 protected:
  // Versions up to `last`: 0 creates the table, each next one a batch of `app`.
  void commit_up_to(int64_t last, const std::string& app = "stream-a") {
    for (int64_t v = delta::latest_version(url) + 1; v <= last; v++) {
      delta::Commit commit(delta::load_snapshot(url));
      if (v == 0) {
        delta::Metadata metadata;
        metadata.schema = {{"id", "long", true, nlohmann::json::object()}};
        commit.set_metadata(metadata);
      }
      commit.set_txn(app, v);
      ASSERT_EQ(commit.publish(), v);
    }
  }
  // The tail, which must agree with the whole listing from its hinted checkpoint on; and the
  // requests it took.
  int64_t expect_tail_agrees(int64_t hinted) {
    storage::RequestCounts before = storage::request_counts();
    std::optional<delta::LogListing> tail = delta::list_log_tail(url);
    int64_t requests = storage::request_counts().total() - before.total();
    delta::LogListing whole = delta::list_log(url);
    EXPECT_TRUE(tail);
    if (!tail) return requests;
    EXPECT_EQ(tail->latest(), whole.latest());
    for (int64_t v : whole.commits) {
      if (v < hinted) continue;
      EXPECT_TRUE(tail->commits.count(v)) << "commit " << v << " missing from the tail";
    }
    EXPECT_TRUE(tail->checkpoints.count(hinted));
    if (tail->checkpoints.count(hinted)) {
      EXPECT_EQ(tail->checkpoints.at(hinted).size(), 1u);
      EXPECT_EQ(tail->checkpoints.at(hinted)[0].key, whole.checkpoints.at(hinted)[0].key);
      EXPECT_EQ(tail->checkpoints.at(hinted)[0].size, whole.checkpoints.at(hinted)[0].size);
    }
    EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-a"), whole.latest());
    return requests;
  }
  void hint(const std::string& text) { delta::put_table_file(url, "_delta_log/_last_checkpoint", text + "\n"); }

  StoreEmulator store{GetParam()};
  TempDir cache;
  std::string url = store.url("tail/table");
};

TEST_P(LogTailOnStore, ListsTenVersionsAtATimeFromTheHintAndMissesNoCommit) {
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  commit_up_to(23);
  // The hint names checkpoint 20: its GET and one listing of versions 20 to 29.
  EXPECT_EQ(expect_tail_agrees(20), 2);
  commit_up_to(47);
  EXPECT_EQ(expect_tail_agrees(40), 2) << "the requests grew with the log";

  // The last commit of a ten (49): the next ten is listed too, and is empty.
  commit_up_to(49);
  EXPECT_EQ(expect_tail_agrees(40), 3);

  // Stale: it names checkpoint 20 while 30 and 40 are there; every ten since is listed.
  hint("{\"version\":20,\"size\":24}");
  EXPECT_EQ(expect_tail_agrees(20), 5);

  // Broken: a checkpoint that is not there, a part count that does not match, no version, not
  // JSON, no hint at all. The whole listing decides then, and the snapshot is the same.
  for (std::string broken : {"{\"version\":60,\"size\":3}", "{\"version\":40,\"size\":24,\"parts\":2}",
                             "{\"size\":24}", "not json", ""}) {
    if (broken.empty()) delta::remove_table_file(url, "_delta_log/_last_checkpoint");
    else hint(broken);
    EXPECT_FALSE(delta::list_log_tail(url)) << broken;
    EXPECT_EQ(delta::latest_version(url), 49) << broken;
    EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-a"), 49) << broken;
  }
  // An older version than the hint's checkpoint is read from the whole listing.
  hint("{\"version\":40,\"size\":24}");
  EXPECT_EQ(delta::load_snapshot(url, 12).version, 12);
  EXPECT_EQ(delta::load_snapshot(url, 12).txn_version("stream-a"), 12);
}

// A service cleans its tables' logs at start and hourly. The plan of that cleanup lists the log
// and reads no commit: its requests stay the same as the log grows (a plan that replayed every
// commit within the retention took a GET each, and the service's restarts on a store grew longer
// with every batch). It plans the same log files as the whole vacuum's plan.
TEST_P(LogTailOnStore, PlanningTheLogCleanupTakesTheSameRequestsHoweverLongTheLog) {
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  auto requests_of_cleanup_plan = [&] {
    storage::RequestCounts before = storage::request_counts();
    delta::VacuumPlan plan = delta::plan_vacuum(url, std::nullopt, std::nullopt, false, delta::VacuumScope::LogOnly);
    int64_t requests = storage::request_counts().total() - before.total();
    EXPECT_EQ(plan.log_files, delta::plan_vacuum(url, std::nullopt, std::nullopt).log_files);
    EXPECT_TRUE(plan.data_files.empty());
    return requests;
  };
  commit_up_to(23);
  int64_t short_log = requests_of_cleanup_plan();
  commit_up_to(63);  // as far past its checkpoint (60) as 23 is past 20
  EXPECT_EQ(requests_of_cleanup_plan(), short_log) << "the requests grew with the log";
  // The latest version's tail, the latest snapshot's, and the log's one listing.
  EXPECT_LE(short_log, 8);
}

// The log keeps every commit of its retention (30 days by default: millions of files for a
// service), and a cleanup can delete only what is older than that: it lists the log from its
// start only until a page holds a commit made within the retention (table/vacuum.cc). Pages of 10
// keys here: a log with 100 more young versions costs its cleanup not one request more.
TEST_P(LogTailOnStore, TheLogCleanupListsTheLogOnlyAsFarAsItsRetentionReaches) {
  storage::StoreSettings settings = store.settings();
  settings["list_page_size"] = "10";
  delta::configure_table_stores({settings, cache.path(), 1 << 20});
  auto requests_of_cleanup_plan = [&] {
    storage::RequestCounts before = storage::request_counts();
    delta::VacuumPlan plan = delta::plan_vacuum(url, std::nullopt, std::nullopt, false, delta::VacuumScope::LogOnly);
    EXPECT_TRUE(plan.log_files.empty());  // nothing is 30 days old
    return storage::request_counts().total() - before.total();
  };
  commit_up_to(99);
  int64_t at_99 = requests_of_cleanup_plan();
  commit_up_to(199);  // as far past its checkpoint (190) as 99 is past 90
  EXPECT_EQ(requests_of_cleanup_plan(), at_99) << "the cleanup listed the young part of the log";
  // The whole listing of the log (200 commits, 19 checkpoints) is over 20 pages long now.
  storage::RequestCounts before = storage::request_counts();
  delta::list_log(url);
  EXPECT_GE(storage::request_counts().get - before.get, 22);
}

// What a cleanup that stops listing early deletes is what the whole listing's plan deletes: a log
// retention of 5 s, versions 0 to 20 made before it and 21 to 59 within it. In pages of 11 keys
// the page with the first young commit (21) ends with the checkpoint at 30: a plan that took the
// whole page would take 30 for the newest version and delete the young commits 21 to 29.
TEST_P(LogTailOnStore, TheLogCleanupThatStopsListingEarlyDeletesWhatTheWholeListingWould) {
  storage::StoreSettings settings = store.settings();
  settings["list_page_size"] = "11";
  delta::configure_table_stores({settings, cache.path(), 1 << 20});
  {
    delta::Commit create(delta::load_snapshot(url));
    delta::Metadata metadata;
    metadata.schema = {{"id", "long", true, nlohmann::json::object()}};
    metadata.configuration = {{"delta.logRetentionDuration", "interval 5 seconds"},
                              {"delta.deletedFileRetentionDuration", "interval 5 seconds"}};
    create.set_metadata(metadata);
    create.set_txn("stream-a", 0);
    ASSERT_EQ(create.publish(), 0);
  }
  commit_up_to(20);
  std::this_thread::sleep_for(std::chrono::milliseconds(6500));  // the store's times are in whole seconds
  commit_up_to(59);
  delta::VacuumPlan cleanup = delta::plan_vacuum(url, std::nullopt, std::nullopt, false, delta::VacuumScope::LogOnly);
  delta::VacuumPlan whole = delta::plan_vacuum(url, std::nullopt, std::nullopt);
  // Version 20 was current at the cutoff and its checkpoint starts the log: 0 to 19 and the
  // checkpoint at 10 go.
  EXPECT_EQ(cleanup.log_files.size(), 21u);
  EXPECT_EQ(cleanup.log_files, whole.log_files);
  delta::run_vacuum(cleanup);
  EXPECT_EQ(delta::list_log(url).commits.size(), 40u);
  EXPECT_EQ(delta::load_snapshot(url, 20).txn_version("stream-a"), 20);
  EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-a"), 59);
}

// Locally a large checkpoint waits for the commits since to add up (table/commit.cc); on a store
// each of those commits costs every reading batch a request, so a table there is checkpointed
// every 10 commits however large its checkpoint, and a snapshot reads at most 9 commits past it.
TEST_P(LogTailOnStore, ALargeCheckpointOnAStoreStillComesEveryTenCommits) {
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  delta::Commit first(delta::load_snapshot(url));
  delta::Metadata metadata;
  metadata.schema = {{"id", "long", true, nlohmann::json::object()}};
  first.set_metadata(metadata);
  for (int i = 0; i < 600; i++) {
    delta::AddFile file;
    file.path = "seed-" + std::to_string(i) + ".parquet";
    file.size = 1;
    first.add(file);
  }
  ASSERT_EQ(first.publish(), 0);
  commit_up_to(39);
  std::vector<int64_t> checkpoints;
  for (const auto& [version, files] : delta::list_log(url).checkpoints) checkpoints.push_back(version);
  EXPECT_EQ(checkpoints, (std::vector<int64_t>{10, 20, 30}));
  storage::RequestCounts before = storage::request_counts();
  delta::Snapshot snapshot = delta::load_snapshot(url);
  EXPECT_EQ(snapshot.files.size(), 600u);
  EXPECT_EQ(snapshot.txn_version("stream-a"), 39);
  // The hint, one listing of versions 30 to 39, the checkpoint (its file kept in the cache) and
  // the 9 commits after it.
  EXPECT_LE(storage::request_counts().total() - before.total(), 13);
}

// v2 checkpoints on the store (table/checkpoint_sidecars.h): the sidecars go up beside the log,
// a later checkpoint names the earlier tombstone sidecars again, and a reader with an empty cache
// reads the table from the checkpoint and its sidecars.
TEST_P(LogTailOnStore, V2CheckpointsPutTheirSidecarsOnTheStoreAndNameThemAgain) {
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  std::set<std::string> live;
  int64_t next = 0;
  auto named = [&] {
    delta::AddFile file;
    file.path = "part-" + std::to_string(next++) + ".parquet";
    file.size = 1;
    return file;
  };
  {
    delta::Commit first(delta::load_snapshot(url));
    delta::Metadata metadata;
    metadata.schema = {{"id", "long", true, nlohmann::json::object()}};
    metadata.configuration["delta.checkpointPolicy"] = "v2";
    metadata.configuration["delta.checkpointInterval"] = "3";
    first.set_metadata(metadata);
    for (int i = 0; i < 4; i++) {
      delta::AddFile file = named();
      live.insert(file.path);
      first.add(file);
    }
    ASSERT_EQ(first.publish(), 0);
  }
  // Each commit compacts the oldest live file into a new one: a tombstone a commit.
  for (int64_t v = 1; v <= 12; v++) {
    delta::Snapshot snapshot = delta::load_snapshot(url);
    delta::Commit commit(snapshot);
    commit.remove(snapshot.files.front(), false);
    live.erase(snapshot.files.front().path);
    delta::AddFile file = named();
    live.insert(file.path);
    commit.add(file);
    ASSERT_EQ(commit.publish(), v);
  }
  auto tombstone_sidecars = [&](int64_t version) {
    char key[80];
    std::snprintf(key, sizeof key, "_delta_log/%020lld.checkpoint.parquet", static_cast<long long>(version));
    std::vector<storage::ObjectInfo> parts = {{key, 0, 0}};
    for (const auto& file : delta::list_table_files(url, "_delta_log/"))
      if (file.key == key) parts = {file};
    std::set<std::string> names;
    for (const auto& sidecar : delta::read_checkpoint(url, parts, delta::CheckpointRead::kTopLevel).sidecars)
      if (delta::holds_only_tombstones(sidecar)) names.insert(sidecar.path);
    return names;
  };
  // 3 tombstones a checkpoint: at 9 one sidecar of 9 (3 and 3 merged into 6, then 6 and 3); at 12
  // that one named again beside a new one of 3.
  std::set<std::string> at_9 = tombstone_sidecars(9), at_12 = tombstone_sidecars(12);
  ASSERT_EQ(at_9.size(), 1u);
  EXPECT_EQ(at_12.size(), 2u);
  EXPECT_TRUE(at_12.count(*at_9.begin())) << "checkpoint 12 names the tombstones of checkpoint 9 again";
  EXPECT_FALSE(delta::list_table_files(url, "_delta_log/_sidecars/").empty());

  // A reader with nothing cached, from the checkpoint of 12 alone.
  TempDir other_cache;
  delta::configure_table_stores({store.settings(), other_cache.path(), 1 << 20});
  delta::Snapshot snapshot = delta::load_snapshot(url);
  EXPECT_EQ(snapshot.version, 12);
  std::set<std::string> read;
  for (const auto& file : snapshot.files) read.insert(file.path);
  EXPECT_EQ(read, live);
  // Every tombstone of the twelve commits, from the checkpoint and its sidecars.
  EXPECT_EQ(delta::load_snapshot(url, 12, delta::Tombstones::kInclude).tombstones.size(), 12u);
}

// A service (remember_checkpoints) keeps each table's replay and reads only the commits after it:
// a snapshot with nothing new is the GET that finds no next commit and the GET that finds the
// newest still there, however long the log; each new commit one GET more, once in the process
// (the commits' texts are kept), none for a commit the process published itself. The snapshots
// are the listed ones, also after the table is made again under the same name with fewer
// versions: nothing of the old one is read for it. (Each snapshot here looks for new commits: the
// log's end found is trusted for no time; the next test trusts it.)
TEST_P(LogTailOnStore, AServiceReadsOnlyTheCommitsAfterWhatItRemembers) {
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  AsAService remembering(std::chrono::milliseconds(0));
  // The requests of a snapshot, which must be the listed one's (version, txns).
  auto requests_of_snapshot = [&] {
    storage::RequestCounts before = storage::request_counts();
    delta::Snapshot snapshot = delta::load_snapshot(url);
    int64_t requests = storage::request_counts().total() - before.total();
    delta::remember_checkpoints(false);  // forgets: the next load lists
    delta::Snapshot listed = delta::load_snapshot(url);
    delta::remember_checkpoints(true);
    delta::load_snapshot(url);  // remembers again
    EXPECT_EQ(snapshot.version, listed.version);
    EXPECT_EQ(snapshot.txn_versions, listed.txn_versions);
    EXPECT_EQ(snapshot.files.size(), listed.files.size());
    return requests;
  };
  // Each after a snapshot that took in the last commit (this process's own, which costs none).
  commit_up_to(23);
  delta::load_snapshot(url);
  EXPECT_EQ(requests_of_snapshot(), 2);
  commit_up_to(57);
  delta::load_snapshot(url);
  EXPECT_EQ(requests_of_snapshot(), 2) << "the requests grew with the log";
  // Commits another writer made meanwhile (each a txn of its own): a GET each, and the one that
  // finds no next commit.
  for (int64_t v = 58; v <= 60; v++)
    ASSERT_TRUE(delta::put_table_file_if_absent(
        url, delta::commit_key(v), "{\"txn\":{\"appId\":\"stream-b\",\"version\":" + std::to_string(v) + "}}\n"));
  EXPECT_EQ(requests_of_snapshot(), 3 + 1);
  EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-b"), 60);
  EXPECT_EQ(requests_of_snapshot(), 2) << "nothing new";
  // Read again by a reader of commits (a stream downstream), they cost no request.
  storage::RequestCounts before = storage::request_counts();
  EXPECT_EQ(delta::read_commits(url, 58, 60).back().txns, (std::map<std::string, int64_t>{{"stream-b", 60}}));
  EXPECT_EQ(storage::request_counts().total(), before.total());
  // A commit this process publishes is kept as it wrote it: its next snapshot GETs only the
  // commit after it, which is not there.
  commit_up_to(61);
  before = storage::request_counts();
  EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-a"), 61);
  EXPECT_EQ(storage::request_counts().total() - before.total(), 1) << "the process read back its own commit";

  // The same name, a new table of 5 versions: the remembered one is dropped, not read on, and
  // so are the texts of the old one's commits 0 to 5 (read here, so that they are kept).
  EXPECT_EQ(delta::read_commits(url, 0, 5).size(), 6u);
  for (const auto& object : storage::open_store(url, store.settings())->list(""))
    delta::remove_table_file(url, object.key);
  commit_up_to(5, "stream-new");
  delta::Snapshot again = delta::load_snapshot(url);
  EXPECT_EQ(again.version, 5);
  EXPECT_EQ(again.txn_version("stream-new"), 5);
  EXPECT_EQ(again.txn_version("stream-a"), -1);
  EXPECT_EQ(again.txn_version("stream-b"), -1);
  EXPECT_EQ(delta::read_commits(url, 3, 3).at(0).txns, (std::map<std::string, int64_t>{{"stream-new", 3}}));
}

// Within the time a service trusts the end of a table's log it found, its snapshots cost no
// request and may miss another writer's newer commit, as a snapshot taken that much earlier
// would; a commit of the process's own is seen at once, and one of its commits losing its version
// to another of its own keeps the trust (also when the winner was read back from the store
// before its writer kept it); past the time, a snapshot looks again. A commit built on
// a snapshot that missed another process's commit conflicts at the version taken (put-if-absent),
// leaves that commit as it was, and from then on every snapshot of the table looks.
TEST_P(LogTailOnStore, AServiceTrustsTheLogEndItFoundForAWhileAndAConflictEndsTheTrust) {
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  AsAService remembering(std::chrono::seconds(60));
  auto requests_of = [](const std::function<void()>& ask) {
    storage::RequestCounts before = storage::request_counts();
    ask();
    return storage::request_counts().total() - before.total();
  };
  auto commit_of = [](int64_t version) {
    return "{\"txn\":{\"appId\":\"stream-b\",\"version\":" + std::to_string(version) + "}}\n";
  };
  // s3rver ignores If-None-Match (docs/object-storage.md), so no commit conflicts on it: there
  // the conflict's call alone.
  const bool conflicts = GetParam() == Emulator::Azurite;

  commit_up_to(5);
  EXPECT_EQ(delta::load_snapshot(url).version, 5);  // finds the end
  EXPECT_EQ(requests_of([&] {
              EXPECT_EQ(delta::load_snapshot(url).version, 5);
              EXPECT_EQ(delta::latest_version(url), 5);
              EXPECT_EQ(delta::txn_version(url, "stream-a"), 5);
            }),
            0)
      << "a snapshot within the trusted time asked the store";
  commit_up_to(6);
  EXPECT_EQ(requests_of([&] { EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-a"), 6); }), 0)
      << "the process's own commit";

  // Two commits of this process on one snapshot: the second conflicts, and the trust stays.
  delta::Commit first(delta::load_snapshot(url));
  delta::Commit second(delta::load_snapshot(url));
  first.set_txn("stream-a", 7);
  second.set_txn("stream-c", 7);
  ASSERT_EQ(first.publish(), 7);
  if (conflicts)
    EXPECT_THROW(second.publish(), CommitConflict);
  else
    delta::forget_log_end(url, 7);
  EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-a"), 7);
  EXPECT_EQ(requests_of([&] { EXPECT_EQ(delta::latest_version(url), 7); }), 0)
      << "a conflict with the process's own commit ended the trust";

  // A commit of the process's own that it did not keep as published (read back from the store by
  // another of its threads first, or put again after an answer lost in transit): a conflict at its
  // version is still with the process itself.
  const std::string own = "{\"txn\":{\"appId\":\"stream-c\",\"version\":8}}\n";
  delta::remember_commit_attempt(url, 8, own);
  ASSERT_TRUE(delta::put_table_file_if_absent(url, delta::commit_key(8), own));
  delta::forget_log_end(url, 8);
  EXPECT_EQ(delta::latest_version(url), 8);
  EXPECT_EQ(requests_of([&] { EXPECT_EQ(delta::latest_version(url), 8); }), 0)
      << "the process's own commit, read from the store, was taken for another process's";

  // Another writer's commit: not seen within the trusted time, seen past it.
  ASSERT_TRUE(delta::put_table_file_if_absent(url, delta::commit_key(9), commit_of(9)));
  EXPECT_EQ(delta::latest_version(url), 8);
  delta::trust_log_end_for(std::chrono::milliseconds(300));
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  EXPECT_EQ(delta::latest_version(url), 9);
  EXPECT_EQ(delta::load_snapshot(url).txn_version("stream-b"), 9);
  delta::trust_log_end_for(std::chrono::seconds(60));

  // A commit on a snapshot that missed another writer's commit: a conflict, their commit kept.
  ASSERT_TRUE(delta::put_table_file_if_absent(url, delta::commit_key(10), commit_of(10)));
  delta::Snapshot missed = delta::load_snapshot(url);
  EXPECT_EQ(missed.version, 9);
  delta::Commit stale(missed);
  stale.set_txn("stream-a", 10);
  if (conflicts) {
    EXPECT_THROW(stale.publish(), CommitConflict);
    EXPECT_EQ(delta::read_table_file(url, delta::commit_key(10)), commit_of(10)) << "the other writer's commit changed";
  } else {
    delta::forget_log_end(url, 10);
  }
  delta::Snapshot after_conflict = delta::load_snapshot(url);
  EXPECT_EQ(after_conflict.version, 10) << "the conflict did not send the snapshot to the store";
  EXPECT_EQ(after_conflict.txn_version("stream-b"), 10);
  EXPECT_EQ(after_conflict.txn_version("stream-a"), 7);
  // From now on every snapshot looks: another process commits to this table.
  EXPECT_GE(requests_of([&] { delta::load_snapshot(url); }), 1);
  ASSERT_TRUE(delta::put_table_file_if_absent(url, delta::commit_key(11), commit_of(11)));
  EXPECT_EQ(delta::latest_version(url), 11);
}

INSTANTIATE_TEST_SUITE_P(Emulators, LogTailOnStore, ::testing::Values(Emulator::S3rver, Emulator::Azurite),
                         [](const auto& info) { return std::string(emulator_name(info.param)); });

}  // namespace
}  // namespace lakestream::testing
