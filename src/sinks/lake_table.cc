#include "sinks/lake_table.h"

namespace lakestream {

delta::TableStoreOptions lake_store_options(const Pipeline& pipeline) {
  return {pipeline.storage, pipeline.cache_dir, pipeline.cache_size_bytes};
}

delta::Table lake_table(const Pipeline& pipeline, const std::string& table) {
  return {pipeline.table_path(table), lake_store_options(pipeline)};
}

}  // namespace lakestream
