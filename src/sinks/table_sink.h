// Commits a stream's micro-batch to its table exactly once. The batch's Delta commit carries
// txn(appId = the stream's id, version = batch id); a batch whose txn is already in the table
// is skipped, which makes every replay after a crash harmless.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "table/commit_record.h"
#include "table/delta_table.h"

namespace lakestream {

struct SinkCommit {
  delta::Table table;  // reached with the settings it was made with (table/table.h)
  std::vector<delta::Column> schema;   // creates the table with it, or evolves the table to it (new columns)
  std::string app_id;
  int64_t batch_id = 0;
  std::string operation = "STREAMING UPDATE";
  std::optional<CommitRecord> record;  // commitInfo.lakestream
  std::vector<std::string> partition_columns;  // fixed when the table is created; a change is refused
  // True when the batch may be in the table already (a replay after a crash). A batch this run
  // planned just now cannot be: finding it there means another runner of the stream committed
  // it, and commit_once stops with an Error (the fence that keeps one writer per stream).
  bool replay = false;
  // Table properties the table must have (delta.enableDeletionVectors, ...): set when it is
  // created, and added to an existing table that lacks them (its protocol raised as they need).
  std::map<std::string, std::string> properties;
};

// A commit on `snapshot` that creates the table with `schema` (and its partition columns), or
// evolves the table's schema to it when it adds columns; Error when the schemas do not fit.
delta::Commit begin_commit(const delta::Snapshot& snapshot, const std::vector<delta::Column>& schema,
                           const std::vector<std::string>& partition_columns, const std::string& table_path,
                           const std::map<std::string, std::string>& properties = {});

// Builds and publishes the commit unless the table already holds batch `batch_id` of `app_id`.
// `build` adds the batch's actions given the snapshot the commit is based on; it runs again on
// the newer snapshot when a concurrent writer took the version first. When `schema` adds columns
// to the table's, the commit also carries the evolved metaData (see table/schema_evolution.h);
// an incompatible schema throws Error before anything is written. Returns false when the
// batch was already in the table (nothing written); throws Error when it was but `replay` is false.
bool commit_once(const SinkCommit& sink, const std::function<void(delta::Commit&, const delta::Snapshot&)>& build);

}  // namespace lakestream
