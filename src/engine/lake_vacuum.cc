#include "engine/lake_vacuum.h"

#include <algorithm>
#include <optional>

#include "checkpoint/checkpoint.h"
#include "util/error.h"

namespace lakestream {

delta::VacuumPlan plan_table_vacuum(const Pipeline& pipeline, const std::string& table, int64_t retain_ms) {
  auto tables = pipeline.table_names();
  if (std::find(tables.begin(), tables.end(), table) == tables.end()) {
    std::string list;
    for (const auto& name : tables) list += (list.empty() ? "" : ", ") + name;
    throw Error("table '" + table + "' is not written by pipeline " + pipeline.path + " (its tables: " + list + ")");
  }
  std::optional<int64_t> needed;
  for (const auto& stream : pipeline.streams) {
    if (stream.kind == StreamKind::Ingest || stream.from != table) continue;
    int64_t version = source_version_needed(pipeline, stream);
    needed = needed ? std::min(*needed, version) : version;
  }
  return delta::plan_vacuum(pipeline.table_path(table), retain_ms, needed);
}

}  // namespace lakestream
