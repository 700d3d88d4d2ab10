// The batch loop of the streams that read a table (latest, window): each batch's versions are
// planned in the checkpoint before the batch reads them, so that a replay reads the same ones.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "checkpoint/checkpoint.h"
#include "table/table.h"

namespace lakestream {

// Plans and runs the batches over what the source table holds now, at most `max_files` files
// each, from version `next_from` on with ids from `next_id` (both advanced).
void run_planned_table_batches(const delta::Table& source, Checkpoint& checkpoint, int64_t max_files,
                               int64_t& next_id, int64_t& next_from,
                               const std::function<void(const PlannedBatch&)>& run);

}  // namespace lakestream
