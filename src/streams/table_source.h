// The source side of the latest and window streams: a Delta table read incrementally, by the
// versions committed since the last batch. Only files added with dataChange=true are new data
// (compaction rewrites are not); a version that deletes data is refused, since these streams
// need an append-only source, as Spark's Delta source does by default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream {

struct TableChanges {
  int64_t from_version = 0;  // first version read (inclusive)
  int64_t to_version = -1;   // last version read (inclusive); < from_version when none
  std::vector<delta::AddFile> added;
  delta::Snapshot shape;     // the table at to_version with `files` = `added`: scan_sql(shape) reads the new rows
};

// The files added by versions from..to (inclusive) of the table at `table_path`.
TableChanges read_table_changes(const std::string& table_path, int64_t from_version, int64_t to_version);

// SQL for the rows of `changes` (an empty relation of the table's shape when there are none).
std::string changes_scan_sql(const TableChanges& changes);

}  // namespace lakestream
