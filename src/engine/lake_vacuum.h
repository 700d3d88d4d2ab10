// `lakestream vacuum` for a pipeline's table: the table layer's vacuum, told which versions the
// pipeline's streams still have to read, so that it never deletes what a stream's checkpoint needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "pipeline/pipeline.h"
#include "table/vacuum.h"

namespace lakestream {

// Plans the vacuum of `table` (one the pipeline writes) keeping `retain_ms` of history (default:
// the table's retention properties) and every version a stream reading the table has not
// finished with. Throws Error for an unknown table and for a retention shorter than the table's
// unless `unsafe_retention` (delta::plan_vacuum).
delta::VacuumPlan plan_table_vacuum(const Pipeline& pipeline, const std::string& table, std::optional<int64_t> retain_ms,
                                    bool unsafe_retention = false,
                                    delta::VacuumScope scope = delta::VacuumScope::DataAndLog);

// Deletes the log files of `table` that its retention lets go, as Delta does after a checkpoint:
// the commits and checkpoints before the newest checkpoint older than delta.logRetentionDuration
// (default 30 days) and than the deleted-file retention, never one a stream of the pipeline still
// has to read. Data files stay (they are `lakestream vacuum`'s). Returns how many it deleted; a
// table not written yet: 0.
int64_t clean_expired_log(const Pipeline& pipeline, const std::string& table);

}  // namespace lakestream
