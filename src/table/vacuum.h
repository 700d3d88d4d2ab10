// Vacuum: deleting what no reader inside the retention can need. A data file goes when no
// version still readable references it and it is older than the retention (a younger unreferenced
// file may belong to a commit being written); log files go when they are older than the oldest
// checkpoint still needed, so that every version kept can still be replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream::delta {

// The table's retention properties, in ms: delta.deletedFileRetentionDuration (default 1 week)
// and delta.logRetentionDuration (default 30 days), written as Spark's intervals ("interval 7
// days", "interval 168 hours", "1 week"). A value that is not such an interval throws Error.
int64_t deleted_file_retention_ms(const Metadata& metadata);
int64_t log_retention_ms(const Metadata& metadata);

struct VacuumPlan {
  Table table;                           // under its normal path
  int64_t oldest_kept_version = 0;       // versions from here on stay readable (time travel, streams)
  std::vector<std::string> data_files;   // to delete, relative to the table folder
  std::vector<std::string> log_files;    // to delete, names in _delta_log
  // Iceberg views (table/iceberg_metadata.h) of versions before the oldest kept one, not the
  // newest view: their files, relative to the table folder.
  std::vector<std::string> iceberg_files;
  int64_t data_bytes = 0;
};

// What a vacuum of the table would delete. Versions stay readable when they were current at some
// time within `retain_ms` (default: the table's deleted-file retention) before now, and so does
// every version from `needed_from_version` on (the oldest a stream reading this table still has to
// read). Log files go only when older than the table's log retention as well. Throws Error when
// there is no table, and when `retain_ms` is shorter than the table's deleted-file retention
// unless `unsafe_retention` (which then also shortens the log retention to `retain_ms`).
// `VacuumScope::LogOnly` plans only the log files, from a listing of the log alone: no data file
// is listed and no version replayed, so it costs the same however long the log (a service cleans
// its logs at start and hourly; on an object store, replaying every commit within the retention
// took a GET per commit, and the service's restarts grew longer with the log).
enum class VacuumScope { DataAndLog, LogOnly };
VacuumPlan plan_vacuum(const Table& wanted, std::optional<int64_t> retain_ms,
                       std::optional<int64_t> needed_from_version, bool unsafe_retention = false,
                       VacuumScope scope = VacuumScope::DataAndLog);

// Deletes the plan's files (data first, then log files oldest first), ignoring files already gone.
void run_vacuum(const VacuumPlan& plan);

}  // namespace lakestream::delta
