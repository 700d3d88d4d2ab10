// The pipeline's tables as the table layer reaches them: each with the lake's [lake.storage]
// settings and local cache given explicitly (table/table.h), so that a stream reads and writes
// its tables as its own pipeline says, whatever else the process has configured.
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "table/table.h"

namespace lakestream {

// The lake's store settings and cache ([lake.storage], [lake] cache_dir and cache_size).
delta::TableStoreOptions lake_store_options(const Pipeline& pipeline);

// The table named `table` in the pipeline's lake.
delta::Table lake_table(const Pipeline& pipeline, const std::string& table);

}  // namespace lakestream
