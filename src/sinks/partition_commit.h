// Commits an ingest worker's batch exactly once per Kafka partition, as kafka-delta-ingest does:
// the commit carries one txn per partition, appId "<stream>-<partition>" with version = the last
// offset written. Workers of a consumer group own different partitions, but a rebalance can
// give a partition to a new owner while the old one still holds a batch of it: whichever commits
// second finds the other's txn and leaves out the offsets already there. Nothing is twice.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "checkpoint/planned_batch.h"  // OffsetRange
#include "table/commit_record.h"
#include "table/delta_table.h"

namespace lakestream {

// The txn appId of one partition of an ingest stream's workers.
std::string partition_app_id(const std::string& stream, int32_t partition);

// Where each partition stands in the table: partition -> the next offset to read, for those that
// have a txn of `stream`.
std::map<int32_t, int64_t> committed_positions(const delta::Snapshot& table, const std::string& stream);

struct PartitionSink {
  delta::Table table;  // reached with the settings it was made with (table/table.h)
  std::string stream;                          // the txns' appIds are "<stream>-<partition>"
  std::vector<delta::Column> schema;           // creates or evolves the table, as commit_once does
  std::vector<std::string> partition_columns;
  CommitRecord record;                         // commitInfo.lakestream (its batch id: the version)
  std::map<std::string, std::string> properties;  // table properties the table must have, as commit_once's
};

// The rows a commit takes: partition -> the first offset to write (offsets below are in the
// table already); partitions not named are left out entirely.
using FirstOffsets = std::map<int32_t, int64_t>;

// Commits the batch that read `ranges` (partition -> [start, end); an empty range only records
// where the partition starts). `write` writes the data files of the rows `from` names, for the
// commit of table version `version` (the batch's rows carry it as _batch_id, so that it grows
// with the log), as the table's metadata `table` has them stored (column mapping); it runs again
// only when a retry changes any of the three. A conflict at the log version
// with other partitions' commits is retried at the next version without reading Kafka again.
// Returns the version committed, or -1 when every partition's offsets were in the table already.
int64_t commit_partitions(const PartitionSink& sink, const std::map<int32_t, OffsetRange>& ranges,
                          const std::function<std::vector<delta::AddFile>(const FirstOffsets& from, int64_t version,
                                                                           const delta::Metadata& table)>& write);

// The SQL condition that keeps the rows `from` names: (partition = 0 AND "offset" >= 17) OR ...
std::string rows_condition(const FirstOffsets& from);

}  // namespace lakestream
