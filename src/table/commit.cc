// Publishing a commit: the JSON lines of version read+1, written with put-if-absent (locally temp
// file, fsync, link; on an object store a PUT with If-None-Match: *) so that of two writers racing
// for a version exactly one wins and the other learns it (CommitConflict) instead of overwriting.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "table/background_checkpoints.h"
#include "table/column_mapping.h"
#include "table/delta_log_json.h"
#include "table/delta_table.h"
#include "table/iceberg_metadata.h"
#include "table/log_files.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "table/write_rules.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"
#include "util/log_time.h"

namespace lakestream::delta {

namespace {

// Where row tracking keeps the highest row id given (PROTOCOL.md, "Row Tracking").
constexpr const char* kRowTrackingDomain = "delta.rowTracking";

// Spark's commitInfo.operationParameters is a map<string,string>: every value goes in as text.
nlohmann::json as_string_map(const nlohmann::json& parameters) {
  nlohmann::json out = nlohmann::json::object();
  if (!parameters.is_object()) return out;
  for (const auto& [key, value] : parameters.items()) out[key] = value.is_string() ? value.get<std::string>() : value.dump();
  return out;
}

// A table that does not set delta.checkpointInterval is checkpointed every 10 commits while its
// checkpoint is small, and at most this many commits apart when it is large.
constexpr int64_t kLongestCheckpointInterval = 100;

// Whether the checkpoint `_last_checkpoint` names still pays against writing a new one at
// `version`: each checkpoint costs all of the table's actions (its live files, and the tombstones
// of a week of compactions), the commits since it only what they hold. A service that commits
// several times a second and compacts as it runs gathers tens of thousands of tombstones an
// hour; writing them all every 10 commits grew the log by a GB an hour (the hour soak). So a new
// checkpoint waits until the commits since the last add up to a quarter of its actions (this
// commit's count standing for each), or for kLongestCheckpointInterval commits.
//
// Not on an object store: there a reader without a remembered replay (every process on a store,
// each batch of a service) reads each commit since the checkpoint with a request of its own, so
// the commits since cost more than the checkpoint's bytes; 100 of them put 150 ms on every batch
// of the store soak's bronze. A table on a store is checkpointed every 10 commits (or its
// delta.checkpointInterval), as Delta does.
bool last_checkpoint_still_pays(const Table& table, int64_t version, int64_t actions_per_commit) {
  if (table.is_remote()) return false;
  std::optional<std::string> text = read_table_file(table, "_delta_log/_last_checkpoint");
  if (!text) return false;
  nlohmann::json hint = nlohmann::json::parse(*text, nullptr, false);
  if (!hint.is_object() || !hint.contains("version") || !hint["version"].is_number_integer() || !hint.contains("size") ||
      !hint["size"].is_number_integer())
    return false;
  int64_t last = hint["version"].get<int64_t>();
  if (std::optional<int64_t> taken = BackgroundCheckpoints::newest_taken(table)) last = std::max(last, *taken);
  int64_t since = version - last;
  if (since <= 0 || since >= kLongestCheckpointInterval) return false;
  return since * std::max<int64_t>(1, actions_per_commit) * 4 < hint["size"].get<int64_t>();
}

}  // namespace

// A checkpoint only spares readers work: the commit is already in, so a failure is a warning.
void Commit::write_checkpoint_if_due(int64_t version) const {
  const Metadata* metadata = metadata_ ? &*metadata_ : read_metadata_ ? &*read_metadata_ : nullptr;
  if (version == 0 || !metadata || version % checkpoint_interval(*metadata) != 0) return;
  int64_t actions = static_cast<int64_t>(adds_.size() + removes_.size() + change_data_.size() + txns_.size()) + 1;
  // A checkpoint with sidecars writes what changed since the one before (table/checkpoint_sidecars.h),
  // not every tombstone again: it comes every interval whatever the table holds.
  if (!metadata->configuration.count("delta.checkpointInterval") && !has_feature(protocol_after(), "v2Checkpoint") &&
      last_checkpoint_still_pays(table_, version, actions))
    return;
  if (BackgroundCheckpoints::take(table_, version)) return;
  try {
    write_checkpoint(table_, version);
  } catch (const Error& e) {
    std::fprintf(stderr, "warning: %s (the commit is in; the next checkpoint will include it)\n", e.what());
  }
}

Commit::Commit(const Snapshot& read) : table_(read.table), read_version_(read.version) {
  if (read.exists()) {
    read_metadata_ = read.metadata;
    read_protocol_ = Protocol{read.min_reader_version, read.min_writer_version, read.reader_features,
                              read.writer_features};
    if (auto domain = read.domains.find(kRowTrackingDomain); domain != read.domains.end()) {
      auto configuration = nlohmann::json::parse(domain->second, nullptr, false);
      if (configuration.is_object() && configuration.contains("rowIdHighWaterMark") &&
          configuration["rowIdHighWaterMark"].is_number_integer())
        read_row_id_high_water_mark_ = configuration["rowIdHighWaterMark"].get<int64_t>();
    }
  }
}

void Commit::set_metadata(const Metadata& metadata) {
  // Column mapping's ids and physical names are fixed here, before any file is written for it.
  metadata_ = with_column_mapping(metadata, read_metadata_, table_.path());
}

void Commit::add(const AddFile& file) { adds_.push_back(file); }

void Commit::tag_new_files(const std::string& key, const std::string& value) {
  for (auto& file : adds_)
    if (!file.deletion_vector) file.tags[key] = value;
}

void Commit::remove(const AddFile& file, bool data_change) {
  RemoveFile removed;
  removed.path = file.path;
  removed.deletion_timestamp = now_epoch_ms();
  removed.data_change = data_change;
  removed.partition_values = file.partition_values;
  removed.size = file.size;
  removed.deletion_vector = file.deletion_vector;
  removed.base_row_id = file.base_row_id;
  removed.default_row_commit_version = file.default_row_commit_version;
  removes_.push_back(std::move(removed));
}

void Commit::add_change_data(const ChangeDataFile& file) { change_data_.push_back(file); }

void Commit::set_txn(const std::string& app_id, int64_t version) { txns_.emplace_back(app_id, version); }

void Commit::set_operation(const std::string& operation) { operation_ = operation; }

void Commit::set_commit_info(const nlohmann::json& extra) {
  for (const auto& [key, value] : extra.items()) commit_info_[key] = value;
}

int64_t Commit::publish() {
  CpuScope cpu_scope("commit.publish");
  const int64_t version = read_version_ + 1;
  if (published_) throw Error("internal: a commit to table " + table_.path() + " was published twice");
  if (table_.path().empty()) throw Error("internal: a commit has no table path (build it from load_snapshot's result)");
  const bool new_table = version == 0;
  if (new_table && !metadata_)
    throw Error("internal: creating table " + table_.path() + " needs its metadata (Commit::set_metadata)");
  if (read_protocol_) check_writable(*read_protocol_, read_metadata_.value_or(Metadata{}), table_.path());

  const int64_t now = now_epoch_ms();
  Metadata metadata = metadata_ ? *metadata_ : *read_metadata_;
  if (metadata_) {
    if (metadata.id.empty()) metadata.id = read_metadata_ ? read_metadata_->id : new_uuid();
    if (metadata.created_time == 0) metadata.created_time = read_metadata_ ? read_metadata_->created_time : now;
  }
  // The protocol changes only when the table needs more of it (a timestamp_ntz column).
  std::optional<Protocol> new_protocol = protocol_needed(read_protocol_, metadata);
  const Protocol& protocol = new_protocol ? *new_protocol : *read_protocol_;
  check_removes_allowed(protocol, metadata, removes_, operation_, table_.path());
  // The change data feed: a commit of lakestream's that takes rows out says which, in cdc files.
  // Without them a reader of the feed takes every row of a removed file as deleted and every row
  // of an added one as inserted: true of a whole-file delete, false of a rewrite (a MERGE's),
  // whose unchanged rows would come out deleted and inserted again.
  if (change_data_feed_enabled(metadata) && change_data_.empty() &&
      std::any_of(removes_.begin(), removes_.end(), [](const RemoveFile& r) { return r.data_change; }))
    throw Error("table " + table_.path() + " has the change data feed on (delta.enableChangeDataFeed = true), and this " +
                operation_ + " takes rows out without writing its changes; nothing was committed. Turn the feed off "
                "with Spark (ALTER TABLE ... SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'false')) to write it here");
  // A file added again with a new deletion vector (merge-on-read) brings no new rows: only the
  // files with rows new to the table are checked.
  std::vector<AddFile> new_rows;
  for (const auto& added : adds_)
    if (!added.deletion_vector || std::none_of(removes_.begin(), removes_.end(),
                                               [&](const RemoveFile& r) { return r.path == added.path; }))
      new_rows.push_back(added);
  check_added_rows(protocol, metadata, new_rows, table_);
  // A table with an Iceberg view stays one the view can describe (table/iceberg_metadata.h).
  if (iceberg_enabled(metadata))
    if (std::string unfit = iceberg_unfit_reason(metadata); !unfit.empty())
      throw Error("table " + table_.path() + " has Iceberg metadata (" + kIcebergProperty + " = true), and after this " +
                  operation_ + " " + unfit + "; nothing was committed. Write the table without them, or unset " +
                  kIcebergProperty);
  const std::string row_tracking_line =
      has_feature(protocol, "rowTracking") ? assign_row_ids(protocol, metadata, version) : "";

  // In-commit timestamps: the commit's time is in its commitInfo (first in the file, as it is
  // here always), and later than the previous commit's, whatever the clocks say.
  int64_t timestamp = now;
  const bool in_commit_timestamp = in_commit_timestamps_enabled(protocol, metadata);
  if (in_commit_timestamp && !new_table) timestamp = std::max(now, previous_commit_timestamp() + 1);
  // A MERGE reads the table it writes, so it is never a blind append, even when it only inserts.
  nlohmann::json info = {{"timestamp", timestamp},
                         {"operation", operation_},
                         {"operationParameters", nlohmann::json::object()},
                         {"engineInfo", "lakestream/0.1"},
                         {"isBlindAppend", removes_.empty() && !metadata_ && operation_ != "MERGE"}};
  if (!new_table) info["readVersion"] = read_version_;
  if (in_commit_timestamp) info["inCommitTimestamp"] = timestamp;
  for (const auto& [key, value] : commit_info_.items()) info[key] = value;
  info["operationParameters"] = as_string_map(info["operationParameters"]);

  std::string text = nlohmann::json{{"commitInfo", info}}.dump() + "\n";
  if (new_protocol) text += protocol_action(*new_protocol).dump() + "\n";
  if (metadata_) text += metadata_action(metadata).dump() + "\n";
  text += row_tracking_line;
  for (const auto& [app_id, txn_version] : txns_) text += txn_action(app_id, txn_version, now).dump() + "\n";
  for (const auto& removed : removes_) text += remove_action(removed).dump() + "\n";
  for (const auto& added : adds_) text += add_action(added).dump() + "\n";
  for (const auto& changed : change_data_) text += cdc_action(changed).dump() + "\n";

  std::string path = commit_file_path(table_.path(), version);
  remember_commit_attempt(table_, version, text);
  if (!put_table_file_if_absent(table_, commit_key(version), text)) {
    forget_log_end(table_, version);
    throw CommitConflict("another writer committed version " + std::to_string(version) + " of table " + table_.path() +
                         " first (" + path + " exists); re-read the table and redo the work on top of it");
  }
  published_ = true;
  remember_published_commit(table_, version, text);
  write_checkpoint_if_due(version);
  if (iceberg_enabled(metadata)) write_iceberg_view(version);
  return version;
}

// The Iceberg view only follows the log: the commit is in, so a failure is a warning, and the
// next commit (or run) writes the view of its own version.
void Commit::write_iceberg_view(int64_t version) const {
  fault_point("before_iceberg_metadata");
  try {
    write_iceberg_metadata(load_snapshot(table_, version));
  } catch (const Error& e) {
    std::fprintf(stderr, "warning: the Iceberg metadata of version %lld of table %s was not written: %s (the commit is in; "
                 "the next commit or run writes it)\n", static_cast<long long>(version), table_.path().c_str(), e.what());
  }
}

std::string Commit::assign_row_ids(const Protocol& protocol, const Metadata& metadata, int64_t version) {
  std::map<std::string, const RemoveFile*> removed_by_path;
  for (const auto& removed : removes_) removed_by_path[removed.path] = &removed;
  int64_t high_water_mark = read_row_id_high_water_mark_;
  bool fresh_rows = false;
  std::set<std::string> kept_in_place;
  for (auto& added : adds_) {
    auto removed = removed_by_path.find(added.path);
    if (removed != removed_by_path.end()) {
      // The same file again (a new deletion vector): its rows keep their ids and version.
      kept_in_place.insert(added.path);
      added.base_row_id = removed->second->base_row_id;
      added.default_row_commit_version = removed->second->default_row_commit_version;
      continue;
    }
    if (added.base_row_id) continue;  // given by the writer that made it
    auto stats = nlohmann::json::parse(added.stats.empty() ? "{}" : added.stats, nullptr, false);
    if (!stats.is_object() || !stats.contains("numRecords") || !stats["numRecords"].is_number_integer())
      throw Error("internal: file " + added.path + " of table " + table_.path() +
                  " has no numRecords, which row tracking needs to give its rows ids");
    added.base_row_id = high_water_mark + 1;
    added.default_row_commit_version = version;
    high_water_mark += std::max<int64_t>(1, stats["numRecords"].get<int64_t>());
    fresh_rows = true;
  }
  bool moves_rows = false;
  for (const auto& removed : removes_) moves_rows = moves_rows || !kept_in_place.count(removed.path);
  if (fresh_rows && moves_rows && row_tracking_enabled(protocol, metadata))
    throw Error("table " + table_.path() + " has row tracking on (delta.enableRowTracking = true): this " + operation_ +
                " would rewrite rows into new files, and their row ids must then be kept in materialized columns, "
                "which lakestream does not write. Nothing was committed. Merge into it with deletion_vectors = true "
                "(merge-on-read leaves rows in place), or turn row tracking off with Spark");
  if (high_water_mark == read_row_id_high_water_mark_) return "";
  return domain_metadata_action(kRowTrackingDomain, nlohmann::json{{"rowIdHighWaterMark", high_water_mark}}.dump()).dump() +
         "\n";
}

Metadata Commit::metadata_after() const { return metadata_ ? *metadata_ : read_metadata_.value_or(Metadata{}); }

Protocol Commit::protocol_after() const {
  std::optional<Protocol> raised = protocol_needed(read_protocol_, metadata_after());
  return raised ? *raised : read_protocol_.value_or(Protocol{});
}

int64_t Commit::previous_commit_timestamp() const {
  // Its commit file may be gone (log clean-up after a checkpoint at that version, on a table no
  // one wrote for weeks): then the clock alone orders the commits, as the protocol's writers do
  // when the previous commit's time is unknown.
  std::optional<std::string> text = read_table_file(table_, commit_key(read_version_));
  if (!text) return 0;
  const nlohmann::json info = parse_commit_text(*text, commit_file_path(table_.path(), read_version_)).commit_info;
  for (const char* key : {"inCommitTimestamp", "timestamp"})
    if (info.contains(key) && info[key].is_number_integer()) return info[key].get<int64_t>();
  return 0;
}

}  // namespace lakestream::delta
