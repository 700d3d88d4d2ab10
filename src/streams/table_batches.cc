#include "streams/table_batches.h"

#include "source/table_source.h"
#include "util/fault.h"

namespace lakestream {

void run_planned_table_batches(const delta::Table& source, Checkpoint& checkpoint, int64_t max_files,
                               int64_t& next_id, int64_t& next_from,
                               const std::function<void(const PlannedBatch&)>& run) {
  int64_t source_version = delta::latest_version(source);
  for (;;) {
    int64_t to = last_version_of_batch(source, next_from, source_version, max_files);
    if (to < next_from) break;
    PlannedBatch batch{next_id++, TableInput{next_from, to, false}};
    checkpoint.plan(batch);
    fault_point("after_plan");
    run(batch);
    next_from = to + 1;
  }
}

}  // namespace lakestream
