#include "table/vacuum.h"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "table/checkpoint_reader.h"
#include "table/deletion_vector.h"
#include "table/delta_table.h"
#include "table/iceberg_metadata.h"
#include "table/log_files.h"
#include "table/path_encoding.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"
#include "util/log_time.h"
#include "util/plural.h"

namespace lakestream::delta {

namespace {

constexpr int64_t kHourMs = 3600LL * 1000;

// Spark's calendar-interval text, with or without the leading "interval".
std::optional<int64_t> interval_ms(const std::string& text) {
  static const std::regex interval(R"(\s*(?:interval\s+)?(\d+)\s*([a-z]+)\s*)", std::regex::icase);
  std::smatch m;
  if (!std::regex_match(text, m, interval)) return std::nullopt;
  int64_t count = std::stoll(m[1]);
  std::string unit = m[2];
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (unit.ends_with("s") && unit.size() > 1) unit.pop_back();
  static const std::map<std::string, int64_t> units = {{"week", 7 * 24 * kHourMs}, {"day", 24 * kHourMs},
                                                       {"hour", kHourMs},           {"minute", 60 * 1000},
                                                       {"second", 1000},            {"millisecond", 1}};
  auto it = units.find(unit);
  if (it == units.end()) return std::nullopt;
  return count * it->second;
}

int64_t retention_property_ms(const Metadata& metadata, const std::string& key, int64_t fallback) {
  auto it = metadata.configuration.find(key);
  if (it == metadata.configuration.end()) return fallback;
  auto ms = interval_ms(it->second);
  if (!ms)
    throw Error("the table property " + key + " = '" + it->second +
                "' is not an interval; write it as Spark does, e.g. 'interval 7 days' or 'interval 168 hours'");
  return *ms;
}

// A retention in words, in the largest unit that divides it: "24 hours", "1 hour", "30 minutes".
std::string retention_words(int64_t ms) {
  if (ms % kHourMs == 0) return counted(ms / kHourMs, "hour", "hours");
  if (ms % (60 * 1000) == 0) return counted(ms / (60 * 1000), "minute", "minutes");
  return counted(ms / 1000, "second", "seconds");
}

// Every file of the table by key, from one listing: sizes and modification times.
using TableListing = std::map<std::string, storage::ObjectInfo>;

int64_t mtime_ms(const TableListing& files, const std::string& key) {
  auto it = files.find(key);
  return it == files.end() ? 0 : it->second.modified_ms;
}

// The oldest version that was still current at `cutoff_ms` or later: version v stopped being
// current when v+1 was committed.
int64_t oldest_version_current_since(const TableListing& files, const LogListing& listing, int64_t cutoff_ms) {
  int64_t oldest = listing.latest();
  while (oldest > 0 && listing.commits.count(oldest) && mtime_ms(files, commit_key(oldest)) >= cutoff_ms &&
         listing.commits.count(oldest - 1))
    oldest--;
  return oldest;
}

// Data files lie anywhere under the table folder except the log; like Spark, names starting with
// '_' or '.' are not data (temp files, _delta_log) unless they are a partition folder (a=b), or
// the change data feed's files (_change_data/), which go as data files do.
bool is_data_file(const std::string& key) {
  if (key.starts_with("_change_data/")) return true;
  if (key.starts_with("metadata/")) return false;  // the Iceberg view, expired below by its own rule
  size_t start = 0;
  for (;;) {
    size_t slash = key.find('/', start);
    std::string name = key.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    bool hidden = name.empty() || name.starts_with("_") || name.starts_with(".");
    if (slash == std::string::npos) return !hidden;
    if (hidden && name.find('=') == std::string::npos) return false;
    start = slash + 1;
  }
}

// The data files no version from `keep_from` on references and older than `cutoff_ms`: the
// oldest kept snapshot's files, and every file added after it, stay (a file's deletion vector
// file as much as the file), and so do the change data files of the kept versions, which a
// reader of the feed from the oldest kept version on reads.
void plan_data_files(VacuumPlan& plan, const TableListing& files, int64_t keep_from, int64_t latest, int64_t cutoff_ms) {
  const Table& table = plan.table;
  std::set<std::string> referenced;
  auto reference = [&](const AddFile& file) {
    referenced.insert(file.path);
    if (file.deletion_vector) referenced.insert(deletion_vector_key(table, *file.deletion_vector));
  };
  for (const auto& file : load_snapshot(table, keep_from).files) reference(file);
  const int64_t first_commit = std::max(keep_from, oldest_commit(table));
  if (first_commit <= latest)
    for (const auto& entry : read_commits(table, first_commit, latest)) {
      if (entry.version > keep_from)
        for (const auto& added : entry.adds) reference(added);
      for (const auto& changed : entry.change_data) referenced.insert(changed.path);
    }
  for (const auto& [key, file] : files) {
    if (!is_data_file(key) || referenced.count(key) || file.modified_ms >= cutoff_ms) continue;
    plan.data_files.push_back(key);
    plan.data_bytes += file.size;
  }
  std::sort(plan.data_files.begin(), plan.data_files.end());
}

// The files of Iceberg views (v<N>.metadata.json, snap-<N>.avro, <N>-m0.avro, for Delta version
// N - 1) of versions older than `keep_from` and than the cutoff, but never the newest view: a
// reader holding an old view reads files vacuum is about to delete, as with Delta versions.
void plan_iceberg_files(VacuumPlan& plan, const TableListing& files, int64_t keep_from, int64_t cutoff_ms) {
  static const std::regex view_file(R"(metadata/(?:v(\d+)\.metadata\.json|snap-(\d+)\.avro|(\d+)-m0\.avro))");
  auto newest = iceberg_metadata_version(plan.table);
  if (!newest) return;
  for (const auto& [key, file] : files) {
    std::smatch m;
    if (!std::regex_match(key, m, view_file) || file.modified_ms >= cutoff_ms) continue;
    int64_t version = std::stoll(m[1].matched ? m[1].str() : m[2].matched ? m[2].str() : m[3].str()) - 1;
    if (version < keep_from && version < *newest) plan.iceberg_files.push_back(key);
  }
}

// The sidecars (table/checkpoint_sidecars.h) that no kept checkpoint can name, once a day old (a
// checkpoint being written names them only when it is published: PROTOCOL.md's "Metadata
// Cleanup"), as names in _delta_log. `oldest_kept` is the oldest checkpoint the cleanup keeps; a
// sidecar's name starts with the version of the checkpoint made with it. A checkpoint names the
// sidecars it made and, of those the one before it named, the ones it keeps: a sidecar is named by
// consecutive checkpoints from the one made with it on, so one made before the oldest kept
// checkpoint and not named by it is named by no kept checkpoint. A sidecar whose name does not
// start with a version is left alone.
void plan_sidecars(VacuumPlan& plan, const TableListing& files, int64_t oldest_kept, int64_t now) {
  std::vector<storage::ObjectInfo> sidecars = list_table_files(plan.table, "_delta_log/_sidecars/");
  if (sidecars.empty()) return;
  static const std::regex checkpoint_name(R"(_delta_log/(\d{20})\.checkpoint\.(?:[0-9a-fA-F-]{36}\.)?(?:parquet|json))");
  std::set<std::string> named;
  for (const auto& [key, file] : files) {
    std::smatch m;
    if (!std::regex_match(key, m, checkpoint_name) || std::stoll(m[1]) != oldest_kept) continue;
    for (const auto& sidecar : read_checkpoint(plan.table, {file}, CheckpointRead::kTopLevel).sidecars)
      named.insert(url_decode_path(sidecar.path.substr(sidecar.path.rfind('/') + 1)));
  }
  static const std::regex versioned(R"((\d{20})\..*)");
  const std::string folder = "_delta_log/_sidecars/";
  for (const auto& sidecar : sidecars) {
    std::string name = sidecar.key.substr(folder.size());
    std::smatch m;
    if (name.find('/') != std::string::npos || !std::regex_match(name, m, versioned)) continue;
    if (std::stoll(m[1]) >= oldest_kept || named.count(name)) continue;
    if (sidecar.modified_ms <= 0 || sidecar.modified_ms >= now - 24 * kHourMs) continue;
    plan.log_files.push_back("_sidecars/" + name);
  }
}

// The log's files from its start through the first commit made at `cutoff_ms` or later: the
// versions whose files can go all come before it (commits are made in version order, so the rest
// of the log is younger still). The log keeps every commit of its retention, 30 days by default,
// which at a service's few commits a second is millions of files: listing them all every hour
// held the table's store for the whole listing. It ends at that commit, not at the end of its
// page: a page that ends with a later version's checkpoint would pass for a log whose newest
// version is that one, with none of the commits before it inside the retention. Should the times
// not rise with the versions, a version past this listing that is older than the cutoff is only
// kept longer: the plan from a listing that stops early never deletes more than from the whole
// one. A local log is listed whole, as one directory read gives it: it holds the temporary files
// of checkpoints killed mid-write, named after their version, which go once an hour old (on a
// store a checkpoint is staged outside the log).
std::vector<storage::ObjectInfo> log_files_up_to(const Table& table, int64_t cutoff_ms) {
  if (!table.is_remote()) return list_table_files(table, "_delta_log/");
  std::vector<storage::ObjectInfo> listed;
  list_table_files_from_start(table, "_delta_log/", [&](std::vector<storage::ObjectInfo> page) {
    for (auto& file : page) {
      // A commit by the log's own reading of names (a v2 checkpoint's `.json` is none).
      bool young_commit = file.modified_ms >= cutoff_ms && !log_listing_of({file}).commits.empty();
      listed.push_back(std::move(file));
      if (young_commit) return false;
    }
    return true;
  });
  return listed;
}

}  // namespace

int64_t deleted_file_retention_ms(const Metadata& metadata) {
  return retention_property_ms(metadata, "delta.deletedFileRetentionDuration", 7 * 24 * kHourMs);
}

int64_t log_retention_ms(const Metadata& metadata) {
  return retention_property_ms(metadata, "delta.logRetentionDuration", 30 * 24 * kHourMs);
}

VacuumPlan plan_vacuum(const Table& wanted, std::optional<int64_t> retain_ms,
                       std::optional<int64_t> needed_from_version, bool unsafe_retention, VacuumScope scope) {
  VacuumPlan plan;
  plan.table = wanted.normal();
  const Table& table = plan.table;
  const bool log_only = scope == VacuumScope::LogOnly;
  // A whole vacuum lists the table once, the log with it (its versions and its files' times then
  // agree); the log's cleanup lists the log only as far as the retention reaches, below.
  std::vector<storage::ObjectInfo> listed;
  if (!log_only) listed = list_table_files(table, "");
  const int64_t latest = log_only ? latest_version(table) : log_listing_of(listed).latest();
  if (latest < 0) throw Error("cannot vacuum " + table.path() + ": there is no Delta table there (no commits in " + log_dir(table.path()) + ")");
  const Metadata metadata = load_snapshot(table, latest).metadata;
  const int64_t table_retention = deleted_file_retention_ms(metadata);
  const int64_t retain = retain_ms.value_or(table_retention);
  if (retain < table_retention && !unsafe_retention)
    throw Error("vacuum of " + table.path() + " with a retention of " + retention_words(retain) + " refused: the table keeps deleted "
                "files " + retention_words(table_retention) + " (delta.deletedFileRetentionDuration; Delta's default is 7 days). "
                "A shorter one can delete files that a long query, a slow reader or a writer about to commit still "
                "uses, which breaks them or loses that commit. Retain at least " + retention_words(table_retention) +
                ", or pass --unsafe-retention if nothing else reads or writes the table meanwhile");
  int64_t log_retain = log_retention_ms(metadata);
  if (unsafe_retention) log_retain = std::min(log_retain, retain);
  const int64_t now = now_epoch_ms();
  const int64_t cutoff = now - retain;
  if (log_only) listed = log_files_up_to(table, std::min(cutoff, now - log_retain));
  const LogListing listing = log_listing_of(listed);
  TableListing files;
  for (auto& file : listed) files[file.key] = std::move(file);

  int64_t keep_from = oldest_version_current_since(files, listing, cutoff);
  if (needed_from_version) keep_from = std::min(keep_from, std::max<int64_t>(*needed_from_version, 0));
  // A version is readable only from a checkpoint at or below it plus the commits after it.
  int64_t base_checkpoint = listing.checkpoint_at_or_below(keep_from);
  int64_t first_commit = listing.commits.empty() ? latest : *listing.commits.begin();
  if (base_checkpoint < 0 && keep_from < first_commit) keep_from = first_commit;
  plan.oldest_kept_version = keep_from;

  if (!log_only) plan_data_files(plan, files, keep_from, latest, cutoff);
  if (!log_only) plan_iceberg_files(plan, files, keep_from, cutoff);
  // Log files go only past the log retention too: commits are the table's history (DESCRIBE
  // HISTORY, time travel by timestamp) even where no data file of theirs is left.
  int64_t log_keep_from = std::min(keep_from, oldest_version_current_since(files, listing, now - log_retain));
  int64_t log_base_checkpoint = listing.checkpoint_at_or_below(log_keep_from);
  if (log_base_checkpoint > 0) {
    static const std::regex versioned(R"((\d{20})\..*)");
    for (const auto& [key, file] : files) {
      if (!key.starts_with("_delta_log/")) continue;
      std::string name = key.substr(std::string("_delta_log/").size());
      std::smatch m;
      if (std::regex_match(name, m, versioned) && std::stoll(m[1]) < log_base_checkpoint) plan.log_files.push_back(name);
    }
    // After the checkpoints that named them, which go first.
    plan_sidecars(plan, files, log_base_checkpoint, now);
  }
  // What a commit or a checkpoint killed mid-write left in the log folder: its temporary file,
  // never published, which nothing reads (the hour soak's 12 kills left 10). Gone once an hour
  // old, far longer than any write takes, whatever the log retention.
  for (const auto& [key, file] : files) {
    if (!key.starts_with("_delta_log/") || !key.ends_with(".tmp")) continue;
    std::string name = key.substr(std::string("_delta_log/").size());
    if (name.find('/') == std::string::npos && file.modified_ms > 0 && file.modified_ms < now - kHourMs)
      plan.log_files.push_back(name);
  }
  return plan;
}

void run_vacuum(const VacuumPlan& plan) {
  // The old Iceberg views first: none of them is left naming a data file that is gone.
  for (const auto& relative : plan.iceberg_files) remove_table_file(plan.table, relative);
  for (const auto& relative : plan.data_files) remove_table_file(plan.table, relative);
  // Oldest first: a crash midway leaves a log that still starts at a whole version.
  for (const auto& name : plan.log_files) {
    fault_point("vacuum_log_delete");
    remove_table_file(plan.table, "_delta_log/" + name);
  }
}

}  // namespace lakestream::delta
