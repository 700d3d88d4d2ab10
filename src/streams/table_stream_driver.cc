#include "streams/table_stream_driver.h"

#include "source/table_source.h"
#include "util/fault.h"

namespace lakestream {

namespace {

// How many batches' plans the checkpoint keeps: enough to tell what recent batches read.
constexpr int64_t kPlansKept = 100;

void plan_and_run(Checkpoint& checkpoint, TableBatchKind& kind, const PlannedBatch& batch) {
  checkpoint.plan(batch);
  fault_point("after_plan");
  kind.run_batch(batch, false);
}

}  // namespace

int64_t drive_table_batches(const delta::Table& source, Checkpoint& checkpoint, int64_t max_files, int64_t committed,
                            TableBatchKind& kind) {
  std::optional<PlannedBatch> last = checkpoint.last_planned();
  if (last && last->id > committed) kind.run_batch(*last, true);
  int64_t next_id = last ? last->id + 1 : 0;
  int64_t next_from = last ? last->table().to + 1 : 0;
  const int64_t source_version = delta::latest_version(source);
  for (;;) {
    int64_t to = last_version_of_batch(source, next_from, source_version, max_files);
    if (to < next_from) break;
    plan_and_run(checkpoint, kind, PlannedBatch{next_id++, TableInput{next_from, to, false}});
    next_from = to + 1;
  }
  if (kind.wants_no_data_batch()) plan_and_run(checkpoint, kind, PlannedBatch{next_id++, TableInput{next_from, next_from - 1, true}});
  if (next_id > kPlansKept) checkpoint.forget_before(next_id - kPlansKept);
  return next_id;
}

}  // namespace lakestream
