// Writers racing for the same version of a table on the store. Azurite enforces put-if-absent
// (If-None-Match: * answered 409): exactly one writer wins each version, the others learn it
// (CommitConflict), re-read the table and commit on top, so no commit is lost. s3rver ignores the
// condition: there a second writer silently replaces the first one's commit, which is why such a
// store may have one writer per table only (docs/object-storage.md).
#include <atomic>
#include <cstdio>
#include <thread>

#include "lake_on_store/store_lake.h"
#include "table/delta_table.h"
#include "table/table_files.h"
#include "util/error.h"

namespace lakestream::testing {
namespace {

delta::Metadata race_metadata() {
  delta::Metadata metadata;
  metadata.schema = {{"id", "long", true, nlohmann::json::object()}};
  return metadata;
}

// Creates the table at `url` (version 0).
void create_table(const std::string& url) {
  delta::Commit create(delta::load_snapshot(url));
  create.set_metadata(race_metadata());
  ASSERT_EQ(create.publish(), 0);
}

// One commit of writer `app` for its batch `batch`, on top of `read`.
int64_t commit_batch(const delta::Snapshot& read, const std::string& app, int64_t batch) {
  delta::Commit commit(read);
  commit.set_txn(app, batch);
  return commit.publish();
}

TEST(CommitRaceOnStore, AzuriteLetsExactlyOneWriterWinEachVersion) {
  StoreEmulator store(Emulator::Azurite);
  TempDir cache;
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  const std::string url = store.url("race/two_writers");
  create_table(url);

  // Both writers read version v-1 and commit v: the first wins, the second gets CommitConflict.
  for (int64_t batch = 1; batch <= 3; batch++) {
    delta::Snapshot read = delta::load_snapshot(url);
    EXPECT_EQ(commit_batch(read, "writer-a", batch), read.version + 1);
    EXPECT_THROW(commit_batch(read, "writer-b", batch), CommitConflict);
    // The loser re-reads and commits on top.
    EXPECT_EQ(commit_batch(delta::load_snapshot(url), "writer-b", batch), read.version + 2);
  }
  delta::Snapshot table = delta::load_snapshot(url);
  EXPECT_EQ(table.version, 6);
  EXPECT_EQ(table.txn_version("writer-a"), 3);
  EXPECT_EQ(table.txn_version("writer-b"), 3);
}

TEST(CommitRaceOnStore, AzuriteWritersRacingInThreadsLoseNoCommit) {
  StoreEmulator store(Emulator::Azurite);
  TempDir cache;
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  const std::string url = store.url("race/threads");
  create_table(url);
  constexpr int kWriters = 4, kBatches = 5;
  std::atomic<int> conflicts{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; w++) {
    writers.emplace_back([&, w] {
      for (int64_t batch = 1; batch <= kBatches; batch++) {
        for (;;) {
          try {
            commit_batch(delta::load_snapshot(url), "writer-" + std::to_string(w), batch);
            break;
          } catch (const CommitConflict&) {
            conflicts++;  // lost the version: re-read and try again
          }
        }
      }
    });
  }
  for (auto& writer : writers) writer.join();
  // Every batch of every writer is in exactly one version; nothing was overwritten.
  EXPECT_EQ(delta::latest_version(url), kWriters * kBatches);
  std::map<std::string, std::vector<int64_t>> batches;
  for (const auto& commit : delta::read_commits(url, 1, kWriters * kBatches))
    for (const auto& [app, batch] : commit.txns) batches[app].push_back(batch);
  for (int w = 0; w < kWriters; w++) EXPECT_EQ(batches["writer-" + std::to_string(w)], (std::vector<int64_t>{1, 2, 3, 4, 5}));
  std::printf("%d conflicts among %d writers\n", conflicts.load(), kWriters);
}

TEST(CommitRaceOnStore, S3rverIgnoresTheConditionSoItTakesOneWriterPerTable) {
  // s3rver does not implement If-None-Match: * (AWS S3, MinIO and R2 do): the second writer of
  // a version is not refused, and its commit replaces the first. lakestream never relies on
  // that; with one writer per table (each stream holds its checkpoint's lock) it never happens.
  StoreEmulator store(Emulator::S3rver);
  TempDir cache;
  delta::configure_table_stores({store.settings(), cache.path(), 1 << 20});
  const std::string url = store.url("race/ignored");
  create_table(url);
  delta::Snapshot read = delta::load_snapshot(url);
  EXPECT_EQ(commit_batch(read, "writer-a", 1), 1);
  EXPECT_EQ(commit_batch(read, "writer-b", 1), 1);  // not refused: the store ignored the condition
  delta::Snapshot table = delta::load_snapshot(url);
  EXPECT_EQ(table.version, 1);
  EXPECT_EQ(table.txn_version("writer-a"), -1);  // writer-a's commit was replaced
  EXPECT_EQ(table.txn_version("writer-b"), 1);
}

}  // namespace
}  // namespace lakestream::testing
