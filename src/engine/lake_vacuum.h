// `lakestream vacuum` for a pipeline's table: the table layer's vacuum, told which versions the
// pipeline's streams still have to read, so that it never deletes what a stream's checkpoint needs.
#pragma once

#include <cstdint>
#include <string>

#include "pipeline/pipeline.h"
#include "table/vacuum.h"

namespace lakestream {

// Plans the vacuum of `table` (one the pipeline writes) keeping `retain_ms` of history and every
// version a stream reading the table has not finished with. Throws Error for an unknown table.
delta::VacuumPlan plan_table_vacuum(const Pipeline& pipeline, const std::string& table, int64_t retain_ms);

}  // namespace lakestream
