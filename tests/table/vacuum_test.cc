// Vacuum: what it deletes (unreferenced data files older than the retention, log files before
// the oldest needed checkpoint) and what it must never delete (a file a reader's snapshot or a
// stream still needs, a young file a writer has not committed yet).
#include <gtest/gtest.h>

#include <filesystem>

#include "support/test_support.h"
#include "table/log_files.h"
#include "table/vacuum.h"
#include "table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using fixtures::age;
using fixtures::create_ids_table;
using fixtures::scanned_ids;
using fixtures::write_ids;
using testing::write_text;

constexpr int64_t kWeekMs = 7LL * 24 * 3600 * 1000;

class Vacuum : public fixtures::TableTest {
 protected:
  // Rewrites the table's only file into a new one (as a compaction or recount does).
  AddFile rewrite(const AddFile& old, const std::string& ids) {
    Commit commit(load_snapshot(table));
    commit.remove(old);
    AddFile file = write_ids(con, table, ids);
    commit.add(file);
    commit.publish();
    return file;
  }

  void age_everything(int64_t age_ms) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(table))
      if (entry.is_regular_file()) age(entry.path().string(), age_ms);
  }
};

TEST_F(Vacuum, KeepsWhatAReadersSnapshotNeedsWithinTheRetention) {
  AddFile first = create_ids_table(con, table, "1, 2");
  Snapshot reader = load_snapshot(table);  // a reader is scanning version 0
  rewrite(first, "1, 2, 3");
  age_everything(60 * 1000);  // a minute ago

  VacuumPlan plan = plan_vacuum(table, kWeekMs, std::nullopt);
  EXPECT_TRUE(plan.data_files.empty());
  run_vacuum(plan);
  EXPECT_EQ(scanned_ids(con, reader), "1,2");  // its file is still there

  // With no retention and nobody needing version 0, the old file goes, the live one stays.
  VacuumPlan no_history = plan_vacuum(table, 0, std::nullopt, true);
  ASSERT_EQ(no_history.data_files, std::vector<std::string>{first.path});
  EXPECT_EQ(no_history.oldest_kept_version, 1);
  run_vacuum(no_history);
  EXPECT_FALSE(std::filesystem::exists(table + "/" + first.path));
  EXPECT_EQ(scanned_ids(con, load_snapshot(table)), "1,2,3");
}

TEST_F(Vacuum, NeverDeletesWhatAStreamStillHasToRead) {
  AddFile first = create_ids_table(con, table, "1");
  AddFile second = rewrite(first, "1, 2");
  rewrite(second, "1, 2, 3");
  age_everything(2 * kWeekMs);
  // A stream reading the table has read version 0 and still has to read version 1 onward.
  VacuumPlan plan = plan_vacuum(table, 0, 1, true);
  EXPECT_EQ(plan.oldest_kept_version, 1);
  EXPECT_EQ(plan.data_files, std::vector<std::string>{first.path});
  run_vacuum(plan);
  auto changes = read_commits(table, 1, 2);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(scanned_ids(con, load_snapshot(table, 1)), "1,2");
}

TEST_F(Vacuum, DeletesOldUntrackedFilesAndOldLogButNotAYoungUncommittedFile) {
  AddFile file = create_ids_table(con, table, "0");
  for (int i = 1; i <= 12; i++) file = rewrite(file, std::to_string(i));  // checkpoint at 10
  age_everything(2 * kWeekMs);
  write_text(table + "/part-00000-crashed-writer.parquet", "x");        // old, never committed
  age(table + "/part-00000-crashed-writer.parquet", 2 * kWeekMs);
  write_text(table + "/part-00000-being-written.parquet", "y");         // a writer about to commit it

  VacuumPlan dry = plan_vacuum(table, 24LL * 3600 * 1000, std::nullopt, true);
  EXPECT_EQ(dry.oldest_kept_version, 12);
  EXPECT_EQ(dry.data_files.size(), 13u);  // 12 rewritten files + the crashed writer's
  EXPECT_TRUE(std::find(dry.data_files.begin(), dry.data_files.end(), "part-00000-crashed-writer.parquet") !=
              dry.data_files.end());
  EXPECT_TRUE(std::find(dry.data_files.begin(), dry.data_files.end(), "part-00000-being-written.parquet") ==
              dry.data_files.end());
  ASSERT_EQ(dry.log_files.size(), 10u);  // commits 0..9, all before the checkpoint at 10
  EXPECT_EQ(dry.log_files.front(), "00000000000000000000.json");
  EXPECT_EQ(dry.log_files.back(), "00000000000000000009.json");
  // Planning deleted nothing.
  EXPECT_TRUE(std::filesystem::exists(commit_file_path(table, 0)));

  run_vacuum(dry);
  EXPECT_FALSE(std::filesystem::exists(commit_file_path(table, 0)));
  EXPECT_TRUE(std::filesystem::exists(table + "/part-00000-being-written.parquet"));
  EXPECT_EQ(scanned_ids(con, load_snapshot(table)), "12");
  // The log still replays from the checkpoint at 10 (older versions' data is gone, by design).
  EXPECT_EQ(load_snapshot(table, 11).version, 11);
}

// A commit or checkpoint killed mid-write leaves its temporary file in the log folder; the log's
// cleanup (a service's, at start and hourly) deletes it once an hour old, and never a young one,
// which may be a write in flight.
TEST_F(Vacuum, TheLogCleanupDeletesWhatAKilledWriteLeftOnceAnHourOld) {
  create_ids_table(con, table, "1");
  const std::string log = table + "/_delta_log/";
  const std::string commit_left = ".00000000000000000001.json.0166859d-d25b-481b-8f38-ddd6aafeb2bd.tmp";
  const std::string checkpoint_left = "00000000000000000010.checkpoint.parquet.6ba44171-f521-47b8-8548-8e8c04bc5059.tmp";
  const std::string in_flight = ".00000000000000000001.json.7e0c3cde-1b43-4c8e-9d1f-2d3a4b5c6d7e.tmp";
  for (const auto& name : {commit_left, checkpoint_left, in_flight}) write_text(log + name, "{}");
  age(log + commit_left, 2LL * 3600 * 1000);
  age(log + checkpoint_left, 2LL * 3600 * 1000);
  age(log + in_flight, 10LL * 60 * 1000);

  VacuumPlan plan = plan_vacuum(table, std::nullopt, std::nullopt, false, VacuumScope::LogOnly);
  std::sort(plan.log_files.begin(), plan.log_files.end());
  EXPECT_EQ(plan.log_files, (std::vector<std::string>{commit_left, checkpoint_left}));
  run_vacuum(plan);
  EXPECT_FALSE(std::filesystem::exists(log + commit_left));
  EXPECT_FALSE(std::filesystem::exists(log + checkpoint_left));
  EXPECT_TRUE(std::filesystem::exists(log + in_flight));
  EXPECT_TRUE(std::filesystem::exists(commit_file_path(table, 0)));
  EXPECT_EQ(scanned_ids(con, load_snapshot(table)), "1");
}

}  // namespace
}  // namespace lakestream::delta
