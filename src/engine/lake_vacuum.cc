#include "engine/lake_vacuum.h"

#include <algorithm>
#include <optional>

#include "checkpoint/checkpoint.h"
#include "sinks/lake_table.h"
#include "table/delta_table.h"
#include "util/error.h"

namespace lakestream {

namespace {

// The oldest version of its source table a latest or window stream may still read: after its
// newest batch when that batch is in the stream's table, else that batch's first version (a
// rerun replays it); 0 for a stream that never ran.
int64_t source_version_needed(const Pipeline& pipeline, const Stream& stream) {
  auto position = read_stream_position(pipeline, stream);
  if (!position || !position->newest) return 0;
  const PlannedBatch& batch = *position->newest;
  bool committed = delta::load_snapshot(lake_table(pipeline, stream.table)).txn_version(position->id) >= batch.id;
  return committed ? batch.table().to + 1 : batch.table().from;
}

}  // namespace

delta::VacuumPlan plan_table_vacuum(const Pipeline& pipeline, const std::string& table, std::optional<int64_t> retain_ms,
                                    bool unsafe_retention, delta::VacuumScope scope) {
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
  return delta::plan_vacuum(lake_table(pipeline, table), retain_ms, needed, unsafe_retention, scope);
}

int64_t clean_expired_log(const Pipeline& pipeline, const std::string& table) {
  if (!delta::load_snapshot(lake_table(pipeline, table)).exists()) return 0;
  delta::VacuumPlan plan = plan_table_vacuum(pipeline, table, std::nullopt, false, delta::VacuumScope::LogOnly);
  delta::run_vacuum(plan);
  return static_cast<int64_t>(plan.log_files.size());
}

}  // namespace lakestream
