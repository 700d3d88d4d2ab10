// The source batch each row of a window table had seen (table/seen_batches.h): the tag's text, and
// compaction keeping it per row over generated tables, through log checkpoints. The reference is a
// map from each row's id to the batch its file was tagged with when written, kept by the test.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "table/compaction.h"
#include "table/seen_batches.h"
#include "table/table_fixtures.h"
#include "table/table_files.h"

namespace lakestream::delta {
namespace {

using fixtures::TableTest;

TEST(SeenBatches, TheTagsTextReadsBackAndAnythingElseIsNoTag) {
  std::vector<SeenBatchRun> runs{{0, 17}, {250, 19}, {251, 3}};
  EXPECT_EQ(seen_batches_text(runs), "0:17,250:19,251:3");
  AddFile file;
  file.tags[kSeenBatchesTag] = seen_batches_text(runs);
  EXPECT_EQ(seen_batches_of(file), runs);
  file.tags[kSeenBatchesTag] = "0:-1";
  EXPECT_EQ(seen_batches_of(file), (std::vector<SeenBatchRun>{{0, -1}}));
  for (const std::string bad : {"", "5:1", "0:1,0:2", "0:1,7:2,3:4", "0:x", "0:1,", ",0:1", "0", "0:1:2", "a:1", "0:99999999999999999999"}) {
    file.tags[kSeenBatchesTag] = bad;
    EXPECT_EQ(seen_batches_of(file), std::nullopt) << bad;
  }
  file.tags.clear();
  EXPECT_EQ(seen_batches_of(file), std::nullopt);
}

class SeenBatchesCompaction : public TableTest, public ::testing::WithParamInterface<int> {};

// Rounds of commits, each adding files of a few rows (ids counted up) tagged with a batch, or now
// and then untagged (a file written before tags), each round ending with a compaction that keeps
// the batches. After each: every row of every live file has, by its file's tag, the batch the
// reference says; untagged files are never merged; and the snapshot read through the log's
// checkpoints has the same tags.
TEST_P(SeenBatchesCompaction, MergedFilesKeepEachRowsBatch) {
  std::mt19937_64 random(GetParam());
  std::map<int64_t, int64_t> batch_of_id;
  std::set<std::string> untagged;
  int64_t next_id = 0, batch = 0;
  bool created = false;
  int merges = 0;
  for (int round = 0; round < 8; round++) {
    int files = 1 + static_cast<int>(random() % 6);
    for (int f = 0; f < files; f++) {
      batch += static_cast<int64_t>(random() % 3);  // a window commit may have seen no new batch
      int rows = 1 + static_cast<int>(random() % 40);
      std::string ids;
      for (int r = 0; r < rows; r++) ids += (ids.empty() ? "" : ",") + std::to_string(next_id + r);
      Commit commit(load_snapshot(table));
      if (!created) commit.set_metadata(fixtures::ids_metadata());
      created = true;
      // Rows in a random order in the file: the tag counts rows as the file holds them.
      AddFile file = write_data_file(con, table, Metadata{}, "SELECT unnest([" + ids + "]) AS id ORDER BY hash(id + " +
                                     std::to_string(random() % 1000) + ")", fixtures::ids_metadata().schema);
      commit.add(file);
      if (random() % 7 == 0) {
        untagged.insert(file.path);
      } else {
        commit.tag_new_files(kSeenBatchesTag, seen_batches_text({{0, batch}}));
        for (int r = 0; r < rows; r++) batch_of_id[next_id + r] = batch;
      }
      commit.publish();
      next_id += rows;
    }
    CompactionResult result = compact_table(con, table, 128 << 20, true);
    if (result.version >= 0) merges++;

    Snapshot snapshot = load_snapshot(table);
    std::set<std::string> live_untagged;
    for (const auto& file : snapshot.files) {
      auto runs = seen_batches_of(file);
      if (!runs) {
        live_untagged.insert(file.path);
        continue;
      }
      sql::Rows rows = con.query("SELECT id, file_row_number AS row FROM read_parquet(" +
                                 sql::quote_literal(readable_path(table, file.path, file.size)) +
                                 ", file_row_number = true) ORDER BY row");
      size_t run = 0;
      for (size_t i = 0; i < rows.size(); i++) {
        int64_t id = std::stoll(rows.text(i, "id")), row = std::stoll(rows.text(i, "row"));
        while (run + 1 < runs->size() && (*runs)[run + 1].first_row <= row) run++;
        ASSERT_TRUE(batch_of_id.count(id)) << "id " << id << " (of an untagged file) was merged into " << file.path;
        EXPECT_EQ((*runs)[run].batch, batch_of_id.at(id)) << "seed " << GetParam() << " round " << round << ": id " << id
                                                          << " at row " << row << " of " << file.path << " ("
                                                          << file.tags.at(kSeenBatchesTag) << ")";
      }
    }
    EXPECT_EQ(live_untagged, untagged) << "seed " << GetParam() << " round " << round;
    std::string every_id;
    for (int64_t id = 0; id < next_id; id++) every_id += (every_id.empty() ? "" : ",") + std::to_string(id);
    EXPECT_EQ(fixtures::scanned_ids(con, snapshot), every_id) << "seed " << GetParam() << " round " << round;
  }
  EXPECT_GE(merges, 6) << "seed " << GetParam();
  // Dozens of commits: the snapshot above was read from a checkpoint, tags and all.
  EXPECT_TRUE(std::filesystem::exists(table + "/_delta_log/_last_checkpoint"));
}

INSTANTIATE_TEST_SUITE_P(Seeds, SeenBatchesCompaction, ::testing::Range(1, 13));

}  // namespace
}  // namespace lakestream::delta
