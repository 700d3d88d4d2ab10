// The source side of the latest and window streams: a Delta table read incrementally, by the
// versions committed since the last batch (the Kafka side is kafka_reader.h). Only files added with dataChange=true are new data
// (compaction rewrites are not); a version that deletes data is refused, since these streams
// need an append-only source, as Spark's Delta source does by default.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream {

struct TableChanges {
  int64_t from_version = 0;  // first version read (inclusive)
  int64_t to_version = -1;   // last version read (inclusive); < from_version when none
  std::vector<delta::AddFile> added;
  delta::Snapshot shape;     // the table at to_version with `files` = `added`: scan_sql(shape) reads the new rows
  // When the oldest commit that added rows was made (its commitInfo timestamp, ms since the
  // epoch): how long the batch's oldest input has waited is measured from it.
  std::optional<int64_t> oldest_commit_ms;
};

// The files added by versions from..to (inclusive) of the table at `table_path`.
TableChanges read_table_changes(const std::string& table_path, int64_t from_version, int64_t to_version);

// The last version of the next batch, which starts at `from_version` and reads no further than
// `until`: versions are taken whole, in order, while their new data files add up to at most
// `max_files` (always at least one version, however many files it has). from_version - 1 when
// there is nothing to read.
int64_t last_version_of_batch(const std::string& table_path, int64_t from_version, int64_t until, int64_t max_files);

// The number of rows `changes` holds, from the files' statistics; nullopt when a file has none.
std::optional<int64_t> rows_by_statistics(const TableChanges& changes);

// SQL for the rows of `changes` (an empty relation of the table's shape when there are none).
std::string changes_scan_sql(const TableChanges& changes);

}  // namespace lakestream
