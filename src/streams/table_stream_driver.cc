#include "streams/table_stream_driver.h"

#include "source/table_source.h"
#include "streams/micro_batches.h"

namespace lakestream {

int64_t drive_table_batches(const delta::Table& source, Checkpoint& checkpoint, int64_t max_files, int64_t committed,
                            TableBatchKind& kind) {
  MicroBatches batches(checkpoint, checkpoint.last_planned(), committed);
  if (const PlannedBatch* unfinished = batches.to_replay()) kind.run_batch(*unfinished, true);
  int64_t next_from = batches.last() ? batches.last()->table().to + 1 : 0;
  const int64_t source_version = delta::latest_version(source);
  for (;;) {
    int64_t to = last_version_of_batch(source, next_from, source_version, max_files);
    if (to < next_from) break;
    kind.run_batch(batches.plan(TableInput{next_from, to, false}), false);
    next_from = to + 1;
  }
  if (kind.wants_no_data_batch()) kind.run_batch(batches.plan(TableInput{next_from, next_from - 1, true}), false);
  batches.forget_old_plans();
  return batches.next_id();
}

}  // namespace lakestream
