// A Delta Lake table (protocol reader 1 / writer 2, or reader 3 / writer 7 with the features of
// table/table_features.h): Parquet data files plus `_delta_log/` of JSON commits (and classic
// checkpoint parquet files). This module is the only writer of
// `_delta_log`. Readers replay the log into a Snapshot; writers build a Commit and publish it
// with put-if-absent, so that two writers never both win the same version.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "table/table.h"

namespace lakestream::delta {

// The protocol action: reader and writer versions, and the table features of versions 3 and 7.
struct Protocol {
  int min_reader_version = 1;
  int min_writer_version = 2;
  // The table features (written only with reader 3 / writer 7); empty otherwise.
  std::vector<std::string> reader_features;
  std::vector<std::string> writer_features;
};

// A column of the table's schema. `type` is the Delta schemaString type: a string for primitive
// types ("long", "decimal(18,2)", "timestamp", ...) or an object for struct/array/map.
struct Column {
  std::string name;
  nlohmann::json type;
  bool nullable = true;
  // The field's metadata as the schema holds it (comments, delta.invariants, ...): kept as read,
  // so a schema change or a checkpoint never drops what another writer set.
  nlohmann::json metadata = nlohmann::json::object();
};

struct Metadata {
  std::string id;                             // a UUID, fixed at creation
  std::optional<std::string> name;            // set by other writers (CREATE TABLE ... COMMENT); kept
  std::optional<std::string> description;
  std::map<std::string, std::string> format_options;
  std::vector<Column> schema;                 // parsed from schemaString
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  int64_t created_time = 0;                   // ms since the epoch
};

// A data file's deletion vector as the log describes it: the rows of the file that are deleted
// (table/deletion_vector.h reads them).
struct DeletionVector {
  std::string storage_type;       // "u": a file beside the data, "i": inline, "p": an absolute path
  std::string path_or_inline_dv;  // u: a folder prefix + the file's UUID in Z85; i: the vector in Z85
  std::optional<int64_t> offset;  // u and p: where its framed bytes start in the file
  int64_t size_in_bytes = 0;      // the serialized vector's size
  int64_t cardinality = 0;        // how many rows it deletes

  // What tells two vectors of one file apart; with the path, a file's identity in the log.
  std::string unique_id() const {
    return storage_type + path_or_inline_dv + (offset ? "@" + std::to_string(*offset) : "");
  }
};

struct AddFile {
  std::string path;  // relative to the table folder, URL-decoded
  std::map<std::string, std::optional<std::string>> partition_values;  // nullopt is a null value
  int64_t size = 0;
  int64_t modification_time = 0;  // ms
  bool data_change = true;
  std::string stats;              // the stats JSON string, may be empty
  // Filled by readers: the version whose commit added it (for a file known only from a
  // checkpoint, the checkpoint's version, since the commit that added it may be gone).
  int64_t version = -1;
  // The rows of the file a DELETE, UPDATE or MERGE marked deleted, when any: scans skip them.
  std::optional<DeletionVector> deletion_vector;
  // Row tracking (the rowTracking feature): the id of the file's first row (row i has
  // base_row_id + i unless the file materializes its ids), and the version that committed its rows.
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;
  // add.tags: a writer's notes on the file (string to string), kept in checkpoints and carried
  // when the file is added again with a deletion vector. Window tables note in them which source
  // batch each row had seen (table/seen_batches.h).
  std::map<std::string, std::string> tags;

  // The file's identity in the log: its path, and its deletion vector's id when it has one (a
  // delete without a rewrite removes the file with its old vector and adds it with a new one).
  std::string logical_key() const { return path + (deletion_vector ? "\n" + deletion_vector->unique_id() : ""); }
  // The rows that remain: numRecords of its stats less the deleted rows; nullopt without stats.
  std::optional<int64_t> live_rows() const;
};

struct RemoveFile {
  std::string path;
  int64_t deletion_timestamp = 0;  // ms
  bool data_change = true;
  // The extended file metadata, when the remover knew the file: its partition values and size.
  std::optional<std::map<std::string, std::optional<std::string>>> partition_values;
  std::optional<int64_t> size;
  // The removed file's deletion vector: the protocol names a file by path and vector.
  std::optional<DeletionVector> deletion_vector;
  // Row tracking: the removed file's, as its add had them.
  std::optional<int64_t> base_row_id;
  std::optional<int64_t> default_row_commit_version;

  std::string logical_key() const { return path + (deletion_vector ? "\n" + deletion_vector->unique_id() : ""); }
};

// A file of the change data feed (the cdc action; delta.enableChangeDataFeed): the rows a commit
// changed, each with its _change_type (insert, update_preimage, update_postimage, delete), in
// `_change_data/`. A commit with such files is read through them; for one without, a reader of
// the feed takes the rows of its added files as inserts and of its removed files as deletes.
struct ChangeDataFile {
  std::string path;  // relative to the table folder, URL-decoded
  std::map<std::string, std::optional<std::string>> partition_values;
  int64_t size = 0;
};

// The table as of one version.
struct Snapshot {
  Table table;  // under its normal path, reached as it was read (a Commit on it publishes there)
  int64_t version = -1;  // -1: no table there yet
  int min_reader_version = 1;
  int min_writer_version = 2;
  std::vector<std::string> reader_features;  // table features (reader 3 / writer 7), else empty
  std::vector<std::string> writer_features;
  Metadata metadata;
  std::vector<AddFile> files;                // the live files, in a stable order
  std::map<std::string, int64_t> txn_versions;  // appId -> the newest txn version
  std::map<std::string, int64_t> txn_last_updated;  // appId -> its txn's lastUpdated, when it has one
  // Files removed and not added again, newest removal kept: what a checkpoint carries on (until
  // the retention expires). Filled only when load_snapshot is asked for them.
  std::vector<RemoveFile> tombstones;
  // The domainMetadata actions in force (domainMetadata feature): domain -> its configuration
  // string. Opaque to lakestream (delta.clustering, delta.rowTracking, an application's own);
  // a checkpoint must carry them on.
  std::map<std::string, std::string> domains;

  bool exists() const { return version >= 0; }
  // The newest txn version committed for appId, or -1 when it has none.
  int64_t txn_version(const std::string& app_id) const;
};

// The same table at the same version with only `files` live: what a scan of some of its files
// needs (table, protocol, metadata), without a copy of the rest (every live file's action, the
// txns, the tombstones).
Snapshot with_files(const Snapshot& snapshot, std::vector<AddFile> files);

// Replays the log of `table` up to `version` (the newest when nullopt), starting
// from the newest checkpoint at or below it when there is one. The result's `table` has the
// normal path (absolute for a folder). A missing table gives version -1 (asking it for a version >= 0 throws); a version
// the log does not have, a log that is unreadable, or a protocol this reader does not support
// (reader version > 1) throws Error.
// Tombstones are left out unless asked for: a long run's compactions leave thousands, and only
// a checkpoint needs them.
enum class Tombstones { kLeaveOut, kInclude };
Snapshot load_snapshot(const Table& table, std::optional<int64_t> version = std::nullopt,
                       Tombstones tombstones = Tombstones::kLeaveOut);

// The protocol and metaData of `version` (files, txns and tombstones empty): what a reader of a
// range of commits needs. In continuous mode it comes from the remembered replay when no commit
// after `version` changed them, rather than from a replay of the log up to `version`.
Snapshot load_table_shape(const Table& table, int64_t version);

// For a long-running process (continuous mode): load_snapshot keeps the actions of the last
// checkpoint it read of each table and reuses them while the listing shows the same checkpoint
// files (same keys, sizes and modification times), so that a snapshot costs the listing and the
// JSON commits after the checkpoint, not a Parquet read. The listing still decides the version.
// It also keeps the newest replay of each table and applies only the commits after it, read one
// by one until the next is missing, with no listing (latest_version and txn_version too): on an
// object store two GETs when nothing is new (the next commit, not there; the newest, still there),
// and none when that was found within the last 200 ms (table/snapshot.cc says why that is safe).
void remember_checkpoints(bool remember);

// While remember_checkpoints() is on, for a table on a store: keeps the text of the commit this
// process just published, so that its own snapshots and readers do not GET it back.
void remember_published_commit(const Table& table, int64_t version, const std::string& text);

// While remember_checkpoints() is on, for a table on a store: notes the commit this process is
// about to put at `version` (before the put), so that a conflict can tell its own commits from
// another process's (forget_log_end).
void remember_commit_attempt(const Table& table, int64_t version, const std::string& text);

// While remember_checkpoints() is on, for a table on a store: called when a commit found version
// `taken` already there (a conflict). The next snapshot looks for new commits on the store again,
// however recently it last found none; and when another process took the version, every snapshot
// looks, for ten minutes.
void forget_log_end(const Table& table, int64_t taken);

// How long a snapshot trusts the end of a table's log on a store, once found (200 ms unless set;
// 0: every snapshot looks).
void trust_log_end_for(std::chrono::milliseconds span);

// While remember_checkpoints() is on: the newest txn version of appId in the remembered replay of a
// table, advanced to its newest commit (-1 when it has none); nullopt when nothing is
// remembered of that table.
std::optional<int64_t> remembered_txn_version(const Table& table, const std::string& app_id);

// The newest version in the log (-1 when there is no table), without replaying it.
int64_t latest_version(const Table& table);

// The newest txn version committed for appId (-1 when none, or no table): the same as
// load_snapshot(table).txn_version(app_id), read from the newest JSON commits back where
// they have it (table/txn_lookup.cc) rather than by replaying the log.
int64_t txn_version(const Table& table, const std::string& app_id);

// One committed version as the log holds it, for incremental readers (the latest/window
// streams) and for check.
struct CommitEntry {
  int64_t version = -1;
  std::vector<AddFile> adds;
  std::vector<RemoveFile> removes;
  std::map<std::string, int64_t> txns;  // appId -> version set in this commit
  std::vector<ChangeDataFile> change_data;
  bool changes_metadata = false;
  nlohmann::json commit_info;             // {} when absent
};

// The oldest version whose JSON commit is still in the log (0 unless vacuum removed older ones);
// history readers start there.
int64_t oldest_commit(const Table& table);

// The commits with from <= version <= to, in order. Throws Error when one is missing (e.g.
// removed by log clean-up), naming the version.
std::vector<CommitEntry> read_commits(const Table& table, int64_t from, int64_t to);

// Writes the classic checkpoint of `version` (`%020d.checkpoint.parquet`: protocol, metaData, the
// live adds, the removes younger than delta.deletedFileRetentionDuration (default 1 week) and
// every txn, in Spark's checkpoint schema) and then `_last_checkpoint`. Both are written under a
// temp name and renamed, so a reader sees a whole checkpoint or none. A table with the
// v2Checkpoint feature gets the same file following the v2 spec, its adds and removes in sidecars
// written before it (table/checkpoint_sidecars.h). Throws Error on failure.
void write_checkpoint(const Table& table, int64_t version);

// Every how many commits a checkpoint is written: delta.checkpointInterval, default 10 as in Spark.
int64_t checkpoint_interval(const Metadata& metadata);

// A commit being built. publish() writes `_delta_log/<read_version+1>.json` with put-if-absent.
class Commit {
 public:
  // `read` is the snapshot the writer based its work on (version -1 to create the table).
  explicit Commit(const Snapshot& read);

  // For a new table (or a schema change): protocol (1, 2) and metaData with Spark's schemaString.
  // An empty id / zero created_time take the table's (or, for a new table, a fresh UUID / now).
  void set_metadata(const Metadata& metadata);
  void add(const AddFile& file);
  // Notes `value` under `key` in the tags of each file added so far that is new (has no deletion
  // vector: a file added again with one keeps the tags of the commit that wrote its rows).
  void tag_new_files(const std::string& key, const std::string& value);
  // Removes a live file: with its deletion vector, partition values and size, as the protocol
  // asks of a writer to a table with deletion vectors.
  void remove(const AddFile& file, bool data_change = true);
  // The rows this commit changes, for the change data feed (write_change_data_file). A commit to
  // a table with delta.enableChangeDataFeed on that takes rows out (a remove with dataChange)
  // must have them: publish() refuses it otherwise.
  void add_change_data(const ChangeDataFile& file);
  // txn action: appId with its version (the stream's batch id), lastUpdated now.
  void set_txn(const std::string& app_id, int64_t version);
  // Extra fields merged into commitInfo (which always gets timestamp, operation, engineInfo).
  void set_operation(const std::string& operation);
  void set_commit_info(const nlohmann::json& extra);

  // The table's metadata and protocol as this commit will leave them: what set_metadata set (or
  // the table's), and the protocol raised to what that metadata needs. A writer deciding how to
  // write (merge-on-read once delta.enableDeletionVectors is set) asks these, not the snapshot.
  Metadata metadata_after() const;
  Protocol protocol_after() const;

  // Writes the commit; returns its version. Every checkpoint_interval() versions it then writes
  // a checkpoint; a failure there only warns (the commit stands, and the next interval retries). Throws CommitConflict when another writer created
  // that version first (the caller re-reads the table and decides), Error on I/O failure, on a
  // new table without metadata, on a table whose protocol or features lakestream does not write
  // (table/table_features.h), on a commit that breaks the table's rules (table/write_rules.h:
  // append-only, NOT NULL, invariants, CHECK constraints), and when called twice. A schema with
  // timestamp_ntz makes the commit raise the protocol to reader 3 / writer 7 with timestampNtz.
  // On a table with in-commit timestamps the commitInfo carries inCommitTimestamp, later than
  // the read version's.
  int64_t publish();

 private:
  void write_checkpoint_if_due(int64_t version) const;
  // Writes the Iceberg view of `version` (table/iceberg_metadata.h); a failure only warns.
  void write_iceberg_view(int64_t version) const;
  // The read version's commit time: its inCommitTimestamp, else its commitInfo.timestamp.
  int64_t previous_commit_timestamp() const;
  // Row tracking: gives the adds their base row ids and commit version (a file added again with a
  // deletion vector keeps its own); returns the domainMetadata line of the new high-water mark,
  // empty when no fresh id was given.
  std::string assign_row_ids(const Protocol& protocol, const Metadata& metadata, int64_t version);

  Table table_;
  int64_t read_version_;
  std::optional<Metadata> metadata_;
  std::vector<AddFile> adds_;
  std::vector<RemoveFile> removes_;
  std::vector<ChangeDataFile> change_data_;
  std::vector<std::pair<std::string, int64_t>> txns_;
  std::string operation_ = "WRITE";
  nlohmann::json commit_info_ = nlohmann::json::object();
  std::optional<Metadata> read_metadata_;  // the table's metadata as read (none for a new table)
  std::optional<Protocol> read_protocol_;  // the table's protocol as read (none for a new table)
  int64_t read_row_id_high_water_mark_ = -1;  // row tracking: the highest row id given so far
  bool published_ = false;
};

}  // namespace lakestream::delta
