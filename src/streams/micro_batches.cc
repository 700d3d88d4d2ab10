#include "streams/micro_batches.h"

#include "util/fault.h"

namespace lakestream {

const PlannedBatch& MicroBatches::plan(decltype(PlannedBatch::input) input) {
  PlannedBatch batch{next_id(), std::move(input)};
  checkpoint_.plan(batch);
  fault_point("after_plan");
  last_ = std::move(batch);
  return *last_;
}

void MicroBatches::forget_old_plans() {
  if (next_id() > kPlansKept) checkpoint_.forget_before(next_id() - kPlansKept);
}

}  // namespace lakestream
