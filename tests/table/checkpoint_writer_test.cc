// Checkpoints we write: every 10 commits, in Spark's checkpoint schema, holding protocol,
// metaData, the live adds, the unexpired removes and every txn; a reader starts from them, even
// with the commits before them gone.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "support/test_support.h"
#include "table/background_checkpoints.h"
#include "table/log_files.h"
#include "table/table_files.h"
#include "table_fixtures.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using fixtures::create_ids_table;
using fixtures::scanned_ids;
using fixtures::write_ids;

class CheckpointWriter : public fixtures::TableTest {
 protected:
  // Versions 1..n: each adds id = version, as batch `version` of app "stream-a"; version 5
  // removes the first file.
  void commit_versions(int64_t n, const AddFile& first) {
    for (int64_t v = 1; v <= n; v++) {
      Commit commit(load_snapshot(table));
      commit.add(write_ids(con, table, std::to_string(v * 100)));
      if (v == 5) commit.remove(first);
      commit.set_txn("stream-a", v);
      EXPECT_EQ(commit.publish(), v);
    }
  }
  // As a service runs: the process remembers its replays and checkpoints, until the test ends.
  struct Remembering {
    Remembering() { remember_checkpoints(true); }
    ~Remembering() { remember_checkpoints(false); }
  };
  // The remove actions (tombstones) in the checkpoint of `version`.
  int64_t tombstones_in_checkpoint(int64_t version) {
    char name[64];
    std::snprintf(name, sizeof name, "/_delta_log/%020lld.checkpoint.parquet", static_cast<long long>(version));
    return con.scalar_int("SELECT count(*) FROM read_parquet(" + sql::quote_literal(table + name) +
                          ") WHERE remove IS NOT NULL");
  }
  // n more versions after `version`, each adding a file.
  void commit_versions_after(int64_t version, int64_t n) {
    for (int64_t v = version + 1; v <= version + n; v++) {
      Commit commit(load_snapshot(table));
      commit.add(write_ids(con, table, std::to_string(v * 100)));
      EXPECT_EQ(commit.publish(), v);
    }
  }
};

TEST_F(CheckpointWriter, EveryTenCommitsWithLastCheckpointAndSparkSchema) {
  AddFile first = create_ids_table(con, table, "1, 2");
  commit_versions(23, first);
  LogListing listing = list_log(table);
  ASSERT_EQ(listing.checkpoints.size(), 2u);
  EXPECT_TRUE(listing.checkpoints.count(10));
  EXPECT_TRUE(listing.checkpoints.count(20));
  auto hint = nlohmann::json::parse(read_file(table + "/_delta_log/_last_checkpoint"));
  EXPECT_EQ(hint["version"], 20);
  // 1 protocol + 1 metaData + 1 txn + 20 adds + 1 remove
  EXPECT_EQ(hint["size"], 24);

  std::string checkpoint = sql::quote_literal(table + "/_delta_log/00000000000000000020.checkpoint.parquet");
  EXPECT_EQ(con.scalar("SELECT string_agg(column_name, ',' ORDER BY column_name) FROM (DESCRIBE SELECT * FROM "
                       "read_parquet(" + checkpoint + "))"),
            "add,metaData,protocol,remove,txn");
  EXPECT_EQ(con.scalar("SELECT count(*) FILTER (WHERE \"add\" IS NOT NULL) || '/' || count(*) FILTER (WHERE remove IS "
                       "NOT NULL) || '/' || max(txn.version) || '/' || max(protocol.minWriterVersion) || '/' || "
                       "max(metaData.partitionColumns::VARCHAR) FROM read_parquet(" + checkpoint + ")"),
            "20/1/20/2/[]");
  EXPECT_EQ(con.scalar("SELECT remove.path FROM read_parquet(" + checkpoint + ") WHERE remove IS NOT NULL"), first.path);

  // Without the commits the checkpoint covers, the table reads the same.
  std::string expected = scanned_ids(con, load_snapshot(table));
  for (int64_t v = 0; v <= 20; v++) remove_all(commit_file_path(table, v));
  Snapshot from_checkpoint = load_snapshot(table, std::nullopt, Tombstones::kInclude);
  EXPECT_EQ(from_checkpoint.version, 23);
  EXPECT_EQ(scanned_ids(con, from_checkpoint), expected);
  EXPECT_EQ(from_checkpoint.txn_version("stream-a"), 23);
  ASSERT_EQ(from_checkpoint.tombstones.size(), 1u);
  EXPECT_EQ(from_checkpoint.tombstones[0].path, first.path);
}

TEST_F(CheckpointWriter, PartitionValuesAndIntervalFromTheTableConfiguration) {
  Commit create(load_snapshot(table));
  Metadata metadata;
  metadata.schema = {{"id", "long"}, {"dt", "date"}};
  metadata.partition_columns = {"dt"};
  metadata.configuration["delta.checkpointInterval"] = "2";
  create.set_metadata(metadata);
  for (const auto& file : write_partitioned_files(con, table, Metadata{}, "SELECT 1 AS id, DATE '2026-03-02' AS dt UNION ALL "
                                                              "SELECT 2, NULL", metadata.schema, {"dt"}))
    create.add(file);
  create.publish();
  Commit second(load_snapshot(table));
  second.set_txn("x", 0);
  second.publish();
  ASSERT_TRUE(list_log(table).checkpoints.empty());
  Commit third(load_snapshot(table));
  third.set_txn("x", 1);
  EXPECT_EQ(third.publish(), 2);
  ASSERT_TRUE(list_log(table).checkpoints.count(2));
  for (int64_t v = 0; v <= 2; v++) remove_all(commit_file_path(table, v));
  EXPECT_EQ(con.scalar("SELECT string_agg(id || ':' || coalesce(dt::VARCHAR, 'null'), ' ' ORDER BY id) FROM (" +
                       scan_sql(load_snapshot(table)) + ")"),
            "1:2026-03-02 2:null");
}

}  // namespace
}  // namespace lakestream::delta

namespace lakestream::delta {
namespace {

// txn_version reads JSON commits from the newest back; wherever the txn is (the newest commit,
// an older one, only the checkpoint, nowhere) it must agree with a full replay.
TEST_F(CheckpointWriter, TxnLookupAgreesWithTheReplayWhereverTheTxnIs) {
  AddFile first = create_ids_table(con, table, "1, 2");
  commit_versions(23, first);  // stream-a sets its txn in versions 1..23
  // Thirty commits of another writer: stream-a's last txn is now older than the read-back window.
  for (int64_t v = 1; v <= 30; v++) {
    Commit commit(load_snapshot(table));
    commit.add(write_ids(con, table, std::to_string(5000 + v)));
    commit.set_txn("stream-b", v);
    commit.publish();
  }
  for (const std::string app : {"stream-a", "stream-b", "never-wrote"})
    EXPECT_EQ(txn_version(table, app), load_snapshot(table).txn_version(app)) << app;
  EXPECT_EQ(txn_version(table, "stream-a"), 23);
  EXPECT_EQ(txn_version(table, "stream-b"), 30);
  EXPECT_EQ(txn_version(table, "never-wrote"), -1);
  // With the commits up to the newest checkpoint gone, the rest comes from the checkpoint.
  int64_t checkpoint = list_log(table).checkpoint_at_or_below(list_log(table).latest());
  for (int64_t v = 0; v <= checkpoint; v++) remove_all(commit_file_path(table, v));
  EXPECT_EQ(txn_version(table, "stream-a"), 23);
  EXPECT_EQ(txn_version(table, "stream-b"), 30);
  EXPECT_EQ(txn_version(join_path(table, "missing"), "stream-a"), -1);
}

// A continuous run keeps the last checkpoint read of each table in memory. Snapshots then read the
// same as from the files, past new checkpoints, and a table deleted and written again under the
// same path (a new checkpoint file of the same name) is read from its files, not from memory.
TEST_F(CheckpointWriter, RememberedCheckpointsReadTheSameAsTheFiles) {
  Remembering remembering;
  AddFile first = create_ids_table(con, table, "1, 2");
  commit_versions(12, first);
  auto fingerprint = [&](const Snapshot& s) {
    return std::to_string(s.version) + " " + scanned_ids(con, s) + " " + std::to_string(s.txn_version("stream-a")) +
           " " + std::to_string(s.tombstones.size());
  };
  auto whole = [&] { return load_snapshot(table, std::nullopt, Tombstones::kInclude); };
  std::string at_12 = fingerprint(whole());  // reads checkpoint 10 and remembers it
  EXPECT_EQ(fingerprint(whole()), at_12);     // from memory
  for (int64_t v = 13; v <= 21; v++) {
    Commit commit(load_snapshot(table));
    commit.add(write_ids(con, table, std::to_string(v * 100)));
    commit.set_txn("stream-a", v);
    EXPECT_EQ(commit.publish(), v);
  }
  std::string remembered = fingerprint(whole());
  remember_checkpoints(false);
  EXPECT_EQ(remembered, fingerprint(whole()));
  EXPECT_EQ(load_snapshot(table).txn_version("stream-a"), 21);

  // The same path, a new table of 12 versions: its checkpoint 10 holds other files.
  remember_checkpoints(true);
  std::string before = fingerprint(whole());
  remove_all(table);
  AddFile again = create_ids_table(con, table, "7");
  commit_versions(12, again);
  std::string new_table = fingerprint(whole());
  EXPECT_NE(new_table, before);
  remember_checkpoints(false);
  EXPECT_EQ(new_table, fingerprint(whole()));
}

// A long-running process remembers no tombstones (a service's compactions make tens of thousands
// an hour), yet every checkpoint it writes carries all of them on: each file a commit replaced,
// from before the last checkpoint and after it.
TEST_F(CheckpointWriter, ARememberingProcessCarriesEveryTombstoneIntoItsCheckpoints) {
  Remembering remembering;
  AddFile previous = create_ids_table(con, table, "1");
  for (int64_t v = 1; v <= 30; v++) {
    Commit commit(load_snapshot(table));
    AddFile next = write_ids(con, table, std::to_string(v + 1));
    commit.add(next);
    commit.remove(previous, false);  // compaction-like: the file replaced, as dataChange=false
    EXPECT_EQ(commit.publish(), v);
    previous = next;
    EXPECT_TRUE(load_snapshot(table).tombstones.empty());
  }
  for (int64_t version : {10, 20, 30}) {
    EXPECT_EQ(tombstones_in_checkpoint(version), version) << "checkpoint " << version;
  }
  EXPECT_EQ(load_snapshot(table, std::nullopt, Tombstones::kInclude).tombstones.size(), 30u);
  EXPECT_EQ(scanned_ids(con, load_snapshot(table)), "31");
}

// A service writes its checkpoints on a thread of their own (table/background_checkpoints.h): the
// commit that makes one due only hands it over. Every checkpoint on disk is then one that thread
// wrote, the newest asked for is among them however far behind the thread was, each carries
// every tombstone, and once it has finished, commits write their own again.
TEST_F(CheckpointWriter, InAServiceTheCheckpointsAreWrittenBesideTheCommitsAndNoneIsLost) {
  Remembering remembering;
  AddFile previous = create_ids_table(con, table, "1");
  BackgroundCheckpoints background;
  for (int64_t v = 1; v <= 30; v++) {
    Commit commit(load_snapshot(table));
    AddFile next = write_ids(con, table, std::to_string(v + 1));
    commit.add(next);
    commit.remove(previous, false);
    EXPECT_EQ(commit.publish(), v);
    previous = next;
  }
  background.finish();
  std::vector<int64_t> versions;
  for (const auto& [version, files] : list_log(table).checkpoints) versions.push_back(version);
  EXPECT_EQ(static_cast<int64_t>(versions.size()), background.written());
  ASSERT_FALSE(versions.empty());
  EXPECT_EQ(versions.back(), 30);
  for (int64_t version : versions) {
    EXPECT_EQ(tombstones_in_checkpoint(version), version) << "checkpoint " << version;
  }
  EXPECT_EQ(nlohmann::json::parse(read_file(table + "/_delta_log/_last_checkpoint"))["version"], 30);

  // Finished: the commit at 40 writes its own.
  for (int64_t v = 31; v <= 40; v++) {
    Commit commit(load_snapshot(table));
    commit.add(write_ids(con, table, std::to_string(v + 1)));
    EXPECT_EQ(commit.publish(), v);
  }
  EXPECT_TRUE(list_log(table).checkpoints.count(40));
  EXPECT_EQ(static_cast<int64_t>(versions.size()), background.written());
  EXPECT_EQ(scanned_ids(con, load_snapshot(table)), "31,32,33,34,35,36,37,38,39,40,41");
}

// The cadence of a large checkpoint counts from the newest checkpoint handed to the thread, not
// from a `_last_checkpoint` the thread has not replaced yet: with the thread held back (as a busy
// service's lags), a table of 600 files checkpointed at 10 is asked again at 90 and 170 (80
// commits of 2 actions against 600 and more), not at every 10th commit from 90 on.
TEST(CheckpointCadence, ALaggingCheckpointThreadIsNotAskedAgainEveryTenCommits) {
  testing::TempDir dir;
  std::string path = dir / "table";
  BackgroundCheckpoints background;
  Commit first(load_snapshot(path));
  Metadata metadata;
  metadata.schema = {{"id", "long"}};
  first.set_metadata(metadata);
  for (int i = 0; i < 600; i++) {
    AddFile file;
    file.path = "seed-" + std::to_string(i) + ".parquet";
    file.size = 1;
    first.add(file);
  }
  first.publish();
  std::vector<int64_t> taken;
  for (int v = 1; v <= 220; v++) {
    Commit commit(load_snapshot(path));
    AddFile file;
    file.path = "commit-" + std::to_string(v) + ".parquet";
    file.size = 1;
    commit.add(file);
    commit.publish();
    std::optional<int64_t> newest = BackgroundCheckpoints::newest_taken(normal_table_path(path));
    if (newest && (taken.empty() || taken.back() != *newest)) taken.push_back(*newest);
    if (v == 10) {  // the first checkpoint written, then the thread held back
      for (int wait = 0; wait < 500 && background.written() < 1; wait++)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      ASSERT_EQ(background.written(), 1);
      background.hold(true);
    }
  }
  EXPECT_EQ(taken, (std::vector<int64_t>{10, 90, 170}));
  background.finish();  // lets it go: the newest asked for (170) is written
  std::vector<int64_t> versions;
  for (const auto& [version, files] : list_log(path).checkpoints) versions.push_back(version);
  EXPECT_EQ(versions, (std::vector<int64_t>{10, 170}));
  EXPECT_EQ(load_snapshot(path).files.size(), 820u);
}

// A reader of a range of commits (a latest or window stream) asks for the shape of the range's
// last version, usually older than the table's newest: from memory when no commit after it changed
// the shape, the shape that version had when one did, with or without a remembered replay.
TEST_F(CheckpointWriter, TableShapeOfAnOlderVersionIsTheShapeItHad) {
  AddFile first = create_ids_table(con, table, "1, 2");
  commit_versions(12, first);
  Snapshot at_12 = load_snapshot(table);
  Metadata changed = at_12.metadata;
  changed.configuration["lakestream.test"] = "changed";
  Commit change(at_12);
  change.set_metadata(changed);
  ASSERT_EQ(change.publish(), 13);
  commit_versions_after(13, 3);
  auto shape = [&](int64_t version) {
    Snapshot s = load_table_shape(table, version);
    EXPECT_EQ(s.version, version);
    EXPECT_TRUE(s.files.empty());
    return s.metadata.configuration.count("lakestream.test") ? s.metadata.configuration.at("lakestream.test") : "";
  };
  for (bool remembering : {false, true}) {
    remember_checkpoints(remembering);
    load_snapshot(table);  // remembers version 16 when remembering
    EXPECT_EQ(shape(11), "") << remembering;
    EXPECT_EQ(shape(12), "") << remembering;
    EXPECT_EQ(shape(13), "changed") << remembering;
    EXPECT_EQ(shape(15), "changed") << remembering;
    EXPECT_EQ(shape(16), "changed") << remembering;
    EXPECT_EQ(load_snapshot(table, 12).metadata.configuration.count("lakestream.test"), 0u) << remembering;
  }
  remember_checkpoints(false);
  EXPECT_THROW(load_table_shape(table, 17), Error);
}

// A long-lived log is read from the checkpoint `_last_checkpoint` names, the commits after it
// found one by one, without a listing of the folder; a stale hint only means more JSON, and a
// hint that names missing files, or none, falls back to the listing. Every way reads the same.
TEST_F(CheckpointWriter, TheLogTailFromTheHintMissesNoCommitWhateverTheHint) {
  AddFile first = create_ids_table(con, table, "1, 2");
  commit_versions(23, first);
  std::string hint_path = table + "/_delta_log/_last_checkpoint";
  auto fingerprint = [&](const Snapshot& s) {
    return std::to_string(s.version) + " " + scanned_ids(con, s) + " " + std::to_string(s.txn_version("stream-a"));
  };
  std::string listed = fingerprint(load_snapshot(table));

  auto tail = list_log_tail(table);
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->latest(), 23);
  EXPECT_EQ(tail->checkpoints.size(), 1u);
  EXPECT_TRUE(tail->checkpoints.count(20));
  ASSERT_EQ(tail->checkpoints.at(20).size(), 1u);
  const storage::ObjectInfo listed_file = list_log(table).checkpoints.at(20).at(0);
  EXPECT_EQ(tail->checkpoints.at(20)[0].key, listed_file.key);
  EXPECT_EQ(tail->checkpoints.at(20)[0].size, listed_file.size);
  EXPECT_EQ(tail->checkpoints.at(20)[0].modified_ms, listed_file.modified_ms);
  EXPECT_EQ(tail->commits, (std::set<int64_t>{20, 21, 22, 23}));
  EXPECT_EQ(latest_version(table), 23);
  EXPECT_EQ(txn_version(table, "stream-a"), 23);

  // Stale: it names checkpoint 10 while 20 is there; the commits after 10 are all found.
  write_file_atomic(hint_path, "{\"version\":10,\"size\":14}\n");
  tail = list_log_tail(table);
  ASSERT_TRUE(tail);
  EXPECT_EQ(tail->latest(), 23);
  EXPECT_EQ(tail->commits.size(), 14u);
  EXPECT_EQ(fingerprint(load_snapshot(table)), listed);

  // Broken: a checkpoint that is not there, a part count that does not match, no version, not
  // JSON, no hint at all. The listing decides then.
  for (std::string broken : {"{\"version\":30,\"size\":3}", "{\"version\":20,\"size\":24,\"parts\":2}",
                             "{\"size\":24}", "not json", ""}) {
    if (broken.empty()) remove_all(hint_path);
    else write_file_atomic(hint_path, broken + "\n");
    EXPECT_FALSE(list_log_tail(table)) << broken;
    EXPECT_EQ(latest_version(table), 23) << broken;
    EXPECT_EQ(fingerprint(load_snapshot(table)), listed) << broken;
    EXPECT_EQ(txn_version(table, "stream-a"), 23) << broken;
  }
  // An older version than the hint's checkpoint is read from the listing.
  write_file_atomic(hint_path, "{\"version\":20,\"size\":24}\n");
  EXPECT_EQ(load_snapshot(table, 12).version, 12);
  EXPECT_EQ(load_snapshot(table, 12).txn_version("stream-a"), 12);
}

}  // namespace
}  // namespace lakestream::delta

namespace lakestream::delta {
namespace {

// A table whose checkpoint is large against what a commit adds (a service's: the tombstones of a
// week of compactions, a file or two a commit) is checkpointed less often than every 10 commits,
// never more than 100 apart; a table that sets delta.checkpointInterval keeps its interval.
TEST(CheckpointCadence, ALargeCheckpointWaitsForTheCommitsToAddUpUnlessTheTableSetsTheInterval) {
  testing::TempDir dir;
  for (bool set_interval : {false, true}) {
    std::string path = dir / (set_interval ? "set" : "default");
    Commit first(load_snapshot(path));
    Metadata metadata;
    metadata.schema = {{"id", "long"}};
    if (set_interval) metadata.configuration["delta.checkpointInterval"] = "10";
    first.set_metadata(metadata);
    for (int i = 0; i < 600; i++) {
      AddFile file;
      file.path = "seed-" + std::to_string(i) + ".parquet";
      file.size = 1;
      first.add(file);
    }
    first.publish();
    for (int v = 1; v <= 220; v++) {
      Commit commit(load_snapshot(path));
      AddFile file;
      file.path = "commit-" + std::to_string(v) + ".parquet";
      file.size = 1;
      commit.add(file);
      commit.publish();
    }
    std::vector<int64_t> versions;
    for (const auto& [version, files] : list_log(path).checkpoints) versions.push_back(version);
    if (set_interval) {
      EXPECT_EQ(versions.size(), 22u);
    } else {
      // 600 actions against 2 a commit: 10, then about 80 and 90 commits later.
      EXPECT_EQ(versions, (std::vector<int64_t>{10, 90, 180}));
    }
    for (size_t i = 1; i < versions.size(); i++) EXPECT_LE(versions[i] - versions[i - 1], 100);
    // Readers find every file, from whichever checkpoint and the commits after it.
    EXPECT_EQ(load_snapshot(path).files.size(), 820u);
    EXPECT_EQ(load_snapshot(path, 150).files.size(), 750u);
  }
}

}  // namespace
}  // namespace lakestream::delta
