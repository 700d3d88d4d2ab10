// check's proof of a table's change data feed (delta.enableChangeDataFeed): the rows the table
// held when the feed was turned on (or at the oldest commit still in the log), plus every change
// since (inserts and postimages in, deletes and preimages out), must be the rows it holds now,
// each as many times. A commit's changes are those of its cdc files when it has them; else its
// added files' rows are inserts and its removed files' rows deletes (a file removed and added
// again with a new deletion vector: the rows the new vector deletes), as PROTOCOL.md's readers
// of the feed take them. Files added or removed with dataChange = false (compaction) change no row.
#pragma once

#include <string>
#include <vector>

#include "check/check.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream {

// The lines for `table` (as of `snapshot`); none when its feed is off.
std::vector<CheckLine> check_change_feed(sql::Connection& con, const std::string& table, const delta::Snapshot& snapshot);

// SQL for the changes of versions `from` to the snapshot's, with the table's columns (by their
// names, as of the snapshot), `_change_type` and `_commit_version`.
std::string change_feed_sql(const delta::Snapshot& snapshot, int64_t from);

}  // namespace lakestream
