// The micro-batch loop of the table-reading streams (streams/table_stream_driver.h), on a real
// Delta source table and a real checkpoint, with a kind that records what it is asked to run:
// generated tables of versions of 0 to 3 files must be read whole, in order, once, each batch
// within max_files_per_trigger (or one version, however large); a batch planned and not committed
// is run again first with the same versions; the no-data batch comes last when asked for; and
// the checkpoint keeps the plans of the last 100 batches only.
#include "streams/table_stream_driver.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "checkpoint/checkpoint.h"
#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/parquet_file.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

struct Ran {
  PlannedBatch batch;
  bool replay;
  int64_t source_end;  // the source's newest version when the run began
};

class RecordingKind : public TableBatchKind {
 public:
  void run_batch(const PlannedBatch& batch, bool replay) override {
    ran.push_back({batch, replay, source_end});
    if (fail_at && batch.id == *fail_at && !replay) throw std::runtime_error("the run dies in batch " + std::to_string(batch.id));
  }
  bool wants_no_data_batch() override { return no_data_batches-- > 0; }

  std::vector<Ran> ran;
  int64_t source_end = -1;
  std::optional<int64_t> fail_at;
  int no_data_batches = 0;
};

class TableStreamDriver : public ::testing::Test {
 protected:
  TableStreamDriver() {
    write_file_atomic(dir_ / "p.toml",
                      "[kafka]\nbootstrap = \"127.0.0.1:9\"\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n"
                      "[sources.orders]\ntopic = \"orders\"\n[sources.orders.schema]\nid = \"bigint\"\n"
                      "[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze\"\n"
                      "[streams.latest_orders]\nkind = \"latest\"\nfrom = \"bronze\"\ntable = \"orders\"\nkey = [\"id\"]\n"
                      "order_by = \"id\"\n");
    pipeline_ = load_pipeline(dir_ / "p.toml");
    source_ = pipeline_.table_path("bronze");
  }

  // Appends one version of `files` data files (a version of none: a commit with only its info).
  void append_version(int files) {
    delta::Snapshot before = delta::load_snapshot(source_);
    delta::Commit commit(before);
    delta::Metadata metadata;
    metadata.schema = {{"id", "long"}};
    if (before.version < 0) commit.set_metadata(metadata);
    for (int i = 0; i < files; i++)
      commit.add(delta::write_data_file(con_, source_, metadata, "SELECT " + std::to_string(rows_++) + "::BIGINT AS id",
                                        metadata.schema));
    commit.publish();
    files_per_version_.push_back(files);
  }

  // Runs the driver once as a run would: the checkpoint opened, then closed.
  void drive(RecordingKind& kind, int64_t committed, int64_t max_files) {
    kind.source_end = static_cast<int64_t>(files_per_version_.size()) - 1;
    Checkpoint checkpoint(pipeline_, *pipeline_.find_stream("latest_orders"));
    drive_table_batches(source_, checkpoint, max_files, committed, kind);
  }

  // Every version read once, in order, by contiguous batches of consecutive ids (a replay counts
  // as its batch), none larger than max_files unless it is one version.
  void expect_covers_every_version(const std::vector<Ran>& ran, int64_t max_files) {
    int64_t next_version = 0, next_id = 0;
    for (const auto& r : ran) {
      const TableInput& input = r.batch.table();
      EXPECT_EQ(r.batch.id, next_id++);
      if (input.to < input.from) continue;  // a no-data batch
      EXPECT_EQ(input.from, next_version);
      int64_t files = 0;
      for (int64_t v = input.from; v <= input.to; v++) files += files_per_version_.at(v);
      EXPECT_TRUE(files <= max_files || input.from == input.to) << "batch " << r.batch.id << ": " << files << " files";
      // Taken whole while they fit: the next version there would not have.
      if (input.to < r.source_end) {
        EXPECT_GT(files + files_per_version_.at(input.to + 1), max_files) << "batch " << r.batch.id << " stopped early";
      }
      next_version = input.to + 1;
    }
    EXPECT_EQ(next_version, static_cast<int64_t>(files_per_version_.size()));
  }

  TempDir dir_;
  Pipeline pipeline_;
  std::string source_;
  sql::Database db_;
  sql::Connection con_{db_};
  int64_t rows_ = 0;
  std::vector<int> files_per_version_;
};

TEST_F(TableStreamDriver, ReadsEveryVersionOnceInBatchesWithinMaxFiles) {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::filesystem::remove_all(dir_ / "lake");
    std::filesystem::remove_all(dir_ / "checkpoints");
    files_per_version_.clear();
    std::mt19937 random(seed);
    const int64_t max_files = 1 + static_cast<int64_t>(random() % 4);
    RecordingKind kind;
    for (int run = 0; run < 3; run++) {  // versions arrive between runs too
      for (int v = 0, n = 3 + static_cast<int>(random() % 6); v < n; v++) append_version(static_cast<int>(random() % 4));
      int64_t committed = kind.ran.empty() ? -1 : kind.ran.back().batch.id;
      drive(kind, committed, max_files);
    }
    expect_covers_every_version(kind.ran, max_files);
    for (const auto& r : kind.ran) EXPECT_FALSE(r.replay);
  }
}

TEST_F(TableStreamDriver, ABatchPlannedAndNotCommittedRunsAgainFirstAsPlanned) {
  for (int v = 0; v < 6; v++) append_version(1);
  RecordingKind dying;
  dying.fail_at = 2;
  EXPECT_THROW(drive(dying, -1, 2), std::runtime_error);
  ASSERT_EQ(dying.ran.size(), 3u);
  const PlannedBatch planned = dying.ran.back().batch;
  append_version(2);  // more arrives before the next run: the replay must not take it

  RecordingKind next;
  drive(next, /*committed=*/1, 2);
  ASSERT_FALSE(next.ran.empty());
  EXPECT_TRUE(next.ran.front().replay);
  EXPECT_EQ(next.ran.front().batch.id, planned.id);
  EXPECT_EQ(next.ran.front().batch.table().from, planned.table().from);
  EXPECT_EQ(next.ran.front().batch.table().to, planned.table().to);
  std::vector<Ran> all(dying.ran.begin(), dying.ran.end() - 1);
  all.insert(all.end(), next.ran.begin(), next.ran.end());
  expect_covers_every_version(all, 2);

  // Committed: nothing runs again, and nothing new means no batch.
  RecordingKind idle;
  drive(idle, next.ran.back().batch.id, 2);
  EXPECT_TRUE(idle.ran.empty());
}

TEST_F(TableStreamDriver, TheNoDataBatchComesLastAndIsPlanned) {
  for (int v = 0; v < 3; v++) append_version(1);
  RecordingKind kind;
  kind.no_data_batches = 1;
  drive(kind, -1, 1);
  ASSERT_EQ(kind.ran.size(), 4u);
  const PlannedBatch& last = kind.ran.back().batch;
  EXPECT_EQ(last.id, 3);
  EXPECT_LT(last.table().to, last.table().from);
  EXPECT_EQ(last.table().from, 3);  // where the next batch with data starts
  // A run that dies after planning it replays it as planned.
  RecordingKind next;
  drive(next, 2, 1);
  ASSERT_EQ(next.ran.size(), 1u);
  EXPECT_TRUE(next.ran[0].replay);
  EXPECT_EQ(next.ran[0].batch.id, 3);
  EXPECT_LT(next.ran[0].batch.table().to, next.ran[0].batch.table().from);
}

TEST_F(TableStreamDriver, TheCheckpointKeepsThePlansOfTheLast100Batches) {
  for (int v = 0; v < 130; v++) append_version(1);
  RecordingKind kind;
  drive(kind, -1, 1);
  ASSERT_EQ(kind.ran.size(), 130u);
  size_t plans = 0;
  for (const auto& entry : std::filesystem::directory_iterator(pipeline_.checkpoint_path("latest_orders") + "/batches")) {
    int64_t id = std::stoll(entry.path().stem().string());
    EXPECT_GE(id, 30) << "the plan of batch " << id << " is still kept";
    plans++;
  }
  EXPECT_EQ(plans, 100u);
}

}  // namespace
}  // namespace lakestream::testing
