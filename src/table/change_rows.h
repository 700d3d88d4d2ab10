// The rows of a table's change data feed, as PROTOCOL.md's readers of the feed take them: a
// commit's changes are those of its change data files when it has them; else its added files'
// rows are inserts and its removed files' rows deletes (a file removed and added again with a new
// deletion vector: the rows the new vector deletes). Files added or removed with dataChange =
// false (compaction) change no row. Read by streams with `read = "changes"` (source/table_source.h)
// and by check's replay of the feed (check/change_feed.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream::delta {

// SQL for the changes made by `commits` (versions of the table up to the snapshot's, in order,
// already read): the table's columns (by their names, as of the snapshot), then `_change_type`,
// `_commit_version` and `_commit_timestamp` (the commit's inCommitTimestamp, else its
// commitInfo.timestamp; NULL when it has neither). An empty relation of that shape when they
// change nothing.
std::string change_rows_sql(const Snapshot& snapshot, const std::vector<CommitEntry>& commits);

// The files a reader of the feed reads of `commit`: its change data files, else its data files
// added and removed with dataChange.
std::vector<std::string> change_feed_files(const CommitEntry& commit);

// When `commit` was made, ms since the epoch: its inCommitTimestamp, else its commitInfo.timestamp.
std::optional<int64_t> commit_time_ms(const CommitEntry& commit);

}  // namespace lakestream::delta
