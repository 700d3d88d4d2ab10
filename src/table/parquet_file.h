// Data files: Parquet written by DuckDB (zstd, timestamps INT64 micros UTC, decimals of precision
// <= 18 as integers), with the Delta stats (numRecords, minValues, maxValues, nullCount) that
// let readers skip files. Data files are never overwritten: each has a fresh UUID name.
#pragma once

#include <string>
#include <vector>

#include "sql/duckdb.h"
#include "table/delta_table.h"

namespace lakestream::delta {

// Writes the rows of `select_sql` (run on `con`) as one new Parquet file in the table folder and
// returns its add action (path, size, time, stats). `columns` are columns of the table, by name:
// the file holds those columns in that order. `table` is the table's metadata as the commit
// leaves it (Commit::metadata_after()): under column mapping each column is stored under its
// physical name with its id as Parquet field id, and stats and partition values are keyed by
// physical name. With `partition_values` (keyed by column name), the file goes to the
// Hive-style folder for them and the partition columns are left out of the file, as Delta
// requires. Returns an AddFile with size 0 and no file when the query has no rows, or, with
// `expected_rows` >= 0, when it has another number of rows than that.
AddFile write_data_file(sql::Connection& con, const Table& into, const Metadata& table,
                        const std::string& select_sql, const std::vector<Column>& columns,
                        const std::map<std::string, std::optional<std::string>>& partition_values = {},
                        int64_t expected_rows = -1);

// Writes the changes of a commit to the change data feed: the rows of `select_sql`, which has the
// `columns` of the table and `_change_type` (insert, update_preimage, update_postimage, delete),
// as one Parquet file in the table's `_change_data/` folder, the table's columns as data files
// hold them and `_change_type` as a string. Returns its cdc action (no path without rows). The
// table is not partitioned (lakestream's merges write unpartitioned tables).
ChangeDataFile write_change_data_file(sql::Connection& con, const Table& into, const Metadata& table,
                                      const std::string& select_sql, const std::vector<Column>& columns);

// A partition: each partition column's value as Delta logs it (null: the null partition).
using PartitionValues = std::map<std::string, std::optional<std::string>>;

// What a writer of batches keeps of its last one for the next: the partition it fell in, when it
// fell in one. A stream's batches nearly always fall in the partition of the last (the day), and
// written there straight a batch needs no pass counting its rows per partition first (a quarter of
// a small bronze batch's writing).
struct LastPartition {
  std::optional<PartitionValues> values;
};

// Writes the rows of `select_sql` as one file per distinct combination of `partition_columns`
// (none: one file), each in its Hive folder (dt=2026-01-01/, a null as __HIVE_DEFAULT_PARTITION__)
// with the partition values Delta keeps in the log. Returns their add actions (none without rows).
// The query may run more than once; each file holds the rows that had its values in the run that
// wrote it, and every row is in one file, also when a partition value changes between runs.
// With `last` and `rows` (how many rows `select_sql` has; -1: not known), the batch is written
// first as one file of the last batch's partition, kept when it holds all `rows` rows, else dropped
// unpublished before the batch goes the counted way; `last` is then set to this batch's partition.
std::vector<AddFile> write_partitioned_files(sql::Connection& con, const Table& into,
                                             const Metadata& table, const std::string& select_sql, const std::vector<Column>& columns,
                                             const std::vector<std::string>& partition_columns,
                                             LastPartition* last = nullptr, int64_t rows = -1);

// SQL text for a relation over the snapshot's live files, with the table's columns in schema
// order and the right DuckDB types (partition columns filled from the add actions, columns
// missing from older files as NULL). For a table with no files: an empty relation of that shape.
// `with_file_version` adds a column `_file_version` with the version that added each row's file.
std::string scan_sql(const Snapshot& snapshot, bool with_file_version = false);

// scan_sql's rows, each with where it is: `__lakestream_file` (the path DuckDB read it from,
// readable_path() of the file) and `__lakestream_row` (its index in the file, as deletion vectors
// count rows). Rows a deletion vector deletes are left out, as in scan_sql.
std::string scan_sql_with_positions(const Snapshot& snapshot);

// The same in two parts, for a join that keeps few rows (merge-on-read looking up a batch's keys
// in a large table): every row of the files with its position, deleted rows too, and the
// positions (`__lakestream_file`, `__lakestream_row`) the deletion vectors delete. Joining
// first and anti-joining the few matches with the deleted positions costs far less than
// anti-joining every row of the table.
std::string every_row_with_positions_sql(const Snapshot& snapshot);
std::string deleted_positions_sql(const Snapshot& snapshot);

// The DuckDB type for a Delta schema type (long -> BIGINT, timestamp -> TIMESTAMPTZ,
// timestamp_ntz -> TIMESTAMP, struct -> STRUCT(...), array -> ...[], map -> MAP(...)).
std::string duckdb_type_of(const nlohmann::json& delta_type);

}  // namespace lakestream::delta
