// The source side of the latest and window streams: a Delta table read incrementally, by the
// versions committed since the last batch (the Kafka side is kafka_reader.h), as the stream's
// `read` says (Spark's Delta source's three ways):
// - appends: the rows of files added with dataChange=true (compaction rewrites are not new
//   data); a version that deletes or rewrites rows is refused, as Spark's Delta source does by
//   default.
// - skip_changes: the same, but a version that deletes or rewrites rows is skipped whole, its
//   added rows too (Spark's skipChangeCommits).
// - changes: the table's change data feed (table/change_rows.h), each row with _change_type,
//   _commit_version and _commit_timestamp (Spark's readChangeFeed); a version that changed rows
//   without recording them in the feed is refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"  // SourceRead
#include "table/delta_table.h"

namespace lakestream {

struct TableChanges {
  int64_t from_version = 0;  // first version read (inclusive)
  int64_t to_version = -1;   // last version read (inclusive); < from_version when none
  SourceRead read = SourceRead::Appends;
  std::vector<delta::AddFile> added;  // appends, skip_changes: the files read
  delta::Snapshot shape;     // the table at to_version with `files` = `added`: scan_sql(shape) reads the new rows
  std::vector<delta::Column> columns;  // the rows' columns: the table's, then the change columns when reading changes
  std::string changes_sql;   // changes: the batch's change rows
  // When the oldest commit that added rows was made (its commitInfo timestamp, ms since the
  // epoch): how long the batch's oldest input has waited is measured from it.
  std::optional<int64_t> oldest_commit_ms;
};

// What versions from..to (inclusive) of `table` hold for a stream reading it as
// `read` says. Throws Error for a version the stream cannot read, saying what to do.
TableChanges read_table_changes(const delta::Table& table, int64_t from_version, int64_t to_version,
                                SourceRead read = SourceRead::Appends);

// `columns` followed by the change columns a stream reading the change data feed gets
// (pipeline/change_columns.h).
std::vector<delta::Column> with_change_columns(std::vector<delta::Column> columns);

// SQL for every row a stream reading the table as `read` says has read, or will read, of its
// versions up to the snapshot's: for check, which recounts a stream's table from it. Throws Error
// when vacuum has deleted a file it needs.
std::string all_rows_read_sql(const delta::Snapshot& snapshot, SourceRead read);

// The last version of the next batch, which starts at `from_version` and reads no further than
// `until`: versions are taken whole, in order, while their new data files add up to at most
// `max_files` (always at least one version, however many files it has). from_version - 1 when
// there is nothing to read.
int64_t last_version_of_batch(const delta::Table& table, int64_t from_version, int64_t until, int64_t max_files);

// The number of rows `changes` holds, from the files' statistics; nullopt when a file has none
// (or when reading changes).
std::optional<int64_t> rows_by_statistics(const TableChanges& changes);

// SQL for the rows of `changes` (an empty relation of their shape when there are none).
std::string changes_scan_sql(const TableChanges& changes);

}  // namespace lakestream
