// The checkpoint's side of every stream kind's micro-batch loop, done once for all of them: where
// the last run left off (its newest plan, and whether that batch was committed), the durable
// plan of each new batch before the batch writes anything, and the pruning of old plans once a
// run's batches are done. A batch planned and not committed is run again first, exactly as
// planned (a crash between plan and commit). The kinds say what a batch reads and how it is
// written: table_stream_driver.h for the kinds that read a Delta table; the ingest kinds read a
// batch before they plan it (the read of the next overlaps the write of the last).
#pragma once

#include <cstdint>
#include <optional>

#include "checkpoint/checkpoint.h"

namespace lakestream {

class MicroBatches {
 public:
  // `last`: the newest batch the checkpoint planned (nullopt: none ever); `committed`: the newest
  // batch the stream committed (-1: none).
  MicroBatches(Checkpoint& checkpoint, std::optional<PlannedBatch> last, int64_t committed)
      : checkpoint_(checkpoint), last_(std::move(last)), committed_(committed) {}

  // The batch a run planned and did not commit, to be run again as planned before any new one;
  // null when there is none.
  const PlannedBatch* to_replay() const { return last_ && last_->id > committed_ ? &*last_ : nullptr; }
  // The newest batch planned (where the next one's input starts); nullopt before the first.
  const std::optional<PlannedBatch>& last() const { return last_; }
  // The id the next batch planned gets.
  int64_t next_id() const { return last_ ? last_->id + 1 : 0; }

  // Plans the next batch, reading `input`, durably; the batch may write once this returns.
  const PlannedBatch& plan(decltype(PlannedBatch::input) input);

  // Drops the plans of all but the newest kPlansKept batches (they are committed); called once a
  // run's batches are done, as it lists the plans.
  void forget_old_plans();

  // How many batches' plans a checkpoint keeps: enough to tell what recent batches read.
  static constexpr int64_t kPlansKept = 100;

 private:
  Checkpoint& checkpoint_;
  std::optional<PlannedBatch> last_;
  int64_t committed_;
};

}  // namespace lakestream
