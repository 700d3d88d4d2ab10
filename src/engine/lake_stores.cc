#include "engine/lake_stores.h"

#include "checkpoint/checkpoint.h"
#include "sinks/lake_table.h"
#include "table/table_files.h"

namespace lakestream {

void use_lake_stores(const Pipeline& pipeline) {
  delta::configure_table_stores(lake_store_options(pipeline));
}

void refresh_checkpoint_copies(const Pipeline& pipeline) {
  for (const Stream* stream : pipeline.in_dependency_order()) Checkpoint::refresh_working_copy(pipeline, *stream);
}

Pipeline load_pipeline_with_stores(const std::string& path) {
  Pipeline pipeline = load_pipeline(path);
  use_lake_stores(pipeline);
  return pipeline;
}

}  // namespace lakestream
