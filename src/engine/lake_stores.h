// Tables on object stores use the pipeline's [lake.storage] settings and its local cache; every
// command that reads or writes tables hands its pipeline over here once, after loading it.
#pragma once

#include "pipeline/pipeline.h"

namespace lakestream {

void use_lake_stores(const Pipeline& pipeline);

// load_pipeline(path), then use_lake_stores.
Pipeline load_pipeline_with_stores(const std::string& path);

}  // namespace lakestream
