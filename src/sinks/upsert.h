// MERGE by key into a Delta table: only the data files that may hold an incoming key (their
// min/max statistics on the first key column say so, and with key sets, that do hold one) are
// read; the rest are not touched. Copy-on-
// write rewrites the files that hold a replaced row, each on its own (in the newest keys' file,
// the rows below every key the batch replaced there apart from the rest, once they are as many:
// so that updates that follow the newest keys rewrite a file the size of the keys still
// changing, not one that grows, and an update of an old key rewrites its own file); on a table with
// deletion vectors on (`delta.enableDeletionVectors` and the deletionVectors feature) the
// replaced rows are marked in their files' vectors instead and only the incoming rows are written
// (merge-on-read), so a batch's cost follows the batch, not the files its keys fall in. Used by
// the latest stream (silver) and by windows in update mode (gold).
#pragma once

#include <string>
#include <vector>

#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream {

class FileKeySets;
class KeyIndex;

// Merge-on-read: a file that would be this share deleted or more is rewritten instead of marked.
constexpr double kPurgeDeletedShare = 0.25;

struct UpsertResult {
  int64_t rows_written = 0;   // incoming rows that went in (new keys and updates)
  int64_t rows_removed = 0;   // existing rows that incoming rows marked `removes` took out
  int64_t files_rewritten = 0;  // copy-on-write; merge-on-read: files purged of their deleted rows
  int64_t vectors_written = 0;  // merge-on-read: files whose replaced rows a deletion vector marks
};

// Adds to `commit` the actions that merge the rows of the DuckDB table `incoming` (one row per
// key, the table's columns) into the table as of `snapshot`. An existing row stays when
// `keep_existing` (a SQL predicate over `t`, the existing row, and `s`, the incoming one) holds;
// otherwise the incoming row replaces it. Keys not in the table are inserted. Key columns match
// when equal or both NULL. `removes` (a SQL predicate over `s`; empty: none) marks incoming rows
// that remove their key instead: when such a row wins, the existing row is taken out (its file
// rewritten without it) and the incoming row is not written (Spark's whenMatchedDelete).
// `index` (merge-on-read only; it must apply the rule keep_existing says, sinks/key_index.h):
// finds the existing rows of incoming keys instead of reading the files that may hold them; the
// caller tells it KeyIndex::committed() once the commit is published. `key_sets` (an integer first
// key column; sinks/file_key_sets.h): of the files whose statistics allow an incoming key, only
// those that hold one are read, where the index does not serve.
UpsertResult upsert_rows(sql::Connection& con, const delta::Table& into, delta::Commit& commit,
                         const delta::Snapshot& snapshot,
                         const std::string& incoming, const std::vector<std::string>& key,
                         const std::string& keep_existing, const std::vector<delta::Column>& columns,
                         const std::string& removes = "", KeyIndex* index = nullptr,
                         FileKeySets* key_sets = nullptr);

}  // namespace lakestream
