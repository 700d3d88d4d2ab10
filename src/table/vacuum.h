// Vacuum: deleting what no reader inside the retention can need. A data file goes when no
// version still readable references it and it is older than the retention (a younger unreferenced
// file may belong to a commit being written); log files go when they are older than the oldest
// checkpoint still needed, so that every version kept can still be replayed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lakestream::delta {

struct VacuumPlan {
  std::string table_path;                // absolute
  int64_t oldest_kept_version = 0;       // versions from here on stay readable (time travel, streams)
  std::vector<std::string> data_files;   // to delete, relative to the table folder
  std::vector<std::string> log_files;    // to delete, names in _delta_log
  int64_t data_bytes = 0;
};

// What a vacuum of the table would delete. Versions stay readable when they were current at some
// time within `retain_ms` before now, and so does every version from `needed_from_version` on (the
// oldest a stream reading this table still has to read). Throws Error when there is no table.
VacuumPlan plan_vacuum(const std::string& table_path, int64_t retain_ms, std::optional<int64_t> needed_from_version);

// Deletes the plan's files (data first, then log files oldest first), ignoring files already gone.
void run_vacuum(const VacuumPlan& plan);

}  // namespace lakestream::delta
