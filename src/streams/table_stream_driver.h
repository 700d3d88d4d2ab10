// The micro-batch loop of the streams that read a Delta table (latest, window), once for both
// (on micro_batches.h, which every kind shares):
// a batch planned and not committed (the run before died) is run again first, as planned; then
// each new batch's source versions, at most max_files_per_trigger files, are planned in the
// checkpoint before the batch reads them, so that a replay after a crash reads the same ones; a
// kind that asks gets one more batch with no new data after them (gold's watermark closing
// windows, as Spark's trailing no-data batch); plans older than the last 100 batches are dropped.
// A kind says only what differs: how it runs a batch, and whether the no-data batch is due.
#pragma once

#include <cstdint>

#include "checkpoint/checkpoint.h"
#include "table/table.h"

namespace lakestream {

class TableBatchKind {
 public:
  virtual ~TableBatchKind() = default;
  // Runs one planned batch: its versions are table().from to table().to of the source (to <
  // from: none, the no-data batch); `replay` when it was planned by a run that did not commit it.
  virtual void run_batch(const PlannedBatch& batch, bool replay) = 0;
  // Asked once the planned batches ran: whether one batch with no new data is due.
  virtual bool wants_no_data_batch() { return false; }
};

// Runs `kind`'s batches over what `source` holds now. `committed` is the newest batch the kind
// has committed (-1: none). Returns the id the next batch will have.
int64_t drive_table_batches(const delta::Table& source, Checkpoint& checkpoint, int64_t max_files, int64_t committed,
                            TableBatchKind& kind);

}  // namespace lakestream
