// Tables on object stores use the pipeline's [lake.storage] settings and its local cache. The
// streams make their tables with them (sinks/lake_table.h); every command that reads or writes
// tables also hands its pipeline over here once, after loading it, for the tables it names by
// path alone (check, query, status, vacuum).
#pragma once

#include "pipeline/pipeline.h"

namespace lakestream {

void use_lake_stores(const Pipeline& pipeline);

// With the checkpoints on an object store, every stream's working copy made what the store holds
// (Checkpoint::refresh_working_copy): for check, status and the like on any machine.
void refresh_checkpoint_copies(const Pipeline& pipeline);

// load_pipeline(path), then use_lake_stores.
Pipeline load_pipeline_with_stores(const std::string& path);

}  // namespace lakestream
