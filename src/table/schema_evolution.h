// Schema evolution, as Spark's mergeSchema does it: a writer whose columns are the table's plus
// new ones at the end evolves the table with a metaData action (no rewrite, no backfill: older
// files read the new columns as null). Anything else (a column dropped or retyped, the partition
// columns changed) would make old and new files disagree, and is refused with how to migrate.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream::delta {

// The metadata the table must get before the writer's rows go in: nullopt when `current` already
// fits `wanted` and `partition_columns`; otherwise `current` with the new columns appended.
// Throws Error naming every incompatible change and the way out (a new table plus a replay).
std::optional<Metadata> evolve_schema(const Metadata& current, const std::vector<Column>& wanted,
                                      const std::vector<std::string>& partition_columns, const std::string& table_path);

}  // namespace lakestream::delta
