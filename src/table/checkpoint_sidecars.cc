#include "table/checkpoint_sidecars.h"

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <vector>

#include "sql/duckdb.h"
#include "table/checkpoint_reader.h"
#include "table/checkpoint_schema.h"
#include "table/log_database.h"
#include "table/log_files.h"
#include "table/table_files.h"
#include "table/vacuum.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"
#include "util/log_time.h"

namespace lakestream::delta {

namespace {

constexpr const char* kSidecarFolder = "_delta_log/_sidecars/";

// One sidecar of the checkpoint being written: made now, or named again from the one before.
struct Sidecar {
  std::string name;  // in _delta_log/_sidecars/
  int64_t size = 0;
  int64_t modified_ms = 0;
  std::string content;  // "files" or "tombstones"
  int64_t rows = 0;
  int64_t newest_deletion_ms = 0;

  std::string key() const { return kSidecarFolder + name; }
  nlohmann::json action() const {
    return {{"sidecar",
             {{"path", name},
              {"sizeInBytes", size},
              {"modificationTime", modified_ms},
              {"tags",
               {{kSidecarContentTag, content},
                {kSidecarRowsTag, std::to_string(rows)},
                {kSidecarNewestDeletionTag, std::to_string(newest_deletion_ms)}}}}}};
  }
};

// The name of a new sidecar made for the checkpoint of `version`: the version first, so that the
// log cleanup knows which checkpoints can name it (table/vacuum.cc).
std::string new_sidecar_name(int64_t version) {
  char prefix[32];
  std::snprintf(prefix, sizeof prefix, "%020lld.", static_cast<long long>(version));
  return prefix + new_uuid() + ".parquet";
}

// Runs the SELECT (add and remove columns) that `select_for` gives for the staged file into a new
// sidecar of the table and publishes it; its rows and newest deletion are counted from the file.
Sidecar write_sidecar(const Table& table, int64_t version, const std::string& content,
                      const std::function<std::string(const std::string& staged)>& select_for) {
  Sidecar sidecar;
  sidecar.name = new_sidecar_name(version);
  sidecar.content = content;
  const std::string staged = staging_path(table, sidecar.key());
  try {
    const std::string select = select_for(staged);
    std::unique_lock<std::mutex> turn;
    sql::Connection& con = LogDatabase::instance().connection(turn);
    con.exec("COPY (" + select + ") TO " + sql::quote_literal(staged) + " (FORMAT parquet, COMPRESSION zstd)");
    sql::Rows counted = con.query("SELECT count(*) AS n, coalesce(max(remove.deletionTimestamp), 0) AS newest FROM read_parquet(" +
                                  sql::quote_literal(staged) + ")");
    turn.unlock();
    remove_all(staged + ".json.tmp");
    sidecar.rows = std::stoll(counted.text(0, "n"));
    sidecar.newest_deletion_ms = std::stoll(counted.text(0, "newest"));
    sidecar.size = file_size_or_zero(staged);
    sidecar.modified_ms = now_epoch_ms();
    publish_staged_file(table, sidecar.key(), staged);
  } catch (const std::exception& e) {
    remove_all(staged + ".json.tmp");
    discard_staged_file(table, staged);
    throw Error("cannot write the sidecar " + sidecar.key() + " of the checkpoint of version " + std::to_string(version) +
                " of table " + table.path() + ": " + e.what());
  }
  return sidecar;
}

// A sidecar of JSON action lines (adds or removes), read by DuckDB from a file beside the staged one.
Sidecar write_sidecar_of_lines(const Table& table, int64_t version, const std::string& content,
                               const std::string& lines) {
  return write_sidecar(table, version, content, [&](const std::string& staged) {
    write_file_atomic(staged + ".json.tmp", lines);
    return "SELECT \"add\", remove FROM read_json(" + sql::quote_literal(staged + ".json.tmp") +
           ", format = 'newline_delimited', columns = " + kFileActionTypes + ")";
  });
}

std::string parquet_list(const Table& table, const std::vector<Sidecar>& sidecars) {
  std::string list;
  for (const auto& sidecar : sidecars)
    list += (list.empty() ? "" : ", ") + sql::quote_literal(readable_path(table, sidecar.key(), sidecar.size));
  return "[" + list + "]";
}

// One sidecar of the tombstones of `parts` not expired before `expired_before`; nullopt when none
// is left.
std::optional<Sidecar> merge_tombstones(const Table& table, int64_t version, const std::vector<Sidecar>& parts,
                                        int64_t expired_before) {
  const std::string files = parquet_list(table, parts);
  Sidecar merged = write_sidecar(table, version, "tombstones", [&](const std::string&) {
    return std::string("SELECT CAST(NULL AS ") + kAddType + ") AS \"add\", remove FROM read_parquet(" + files +
           ", union_by_name = true) WHERE remove IS NOT NULL AND (remove.deletionTimestamp IS NULL OR " +
           "remove.deletionTimestamp >= " + std::to_string(expired_before) + ")";
  });
  if (merged.rows > 0) return merged;
  remove_table_file(table, merged.key());
  return std::nullopt;
}

// The tombstone sidecars of the checkpoint at `parts` when it is one of this layout (every sidecar
// tagged by lakestream), oldest first; nullopt for any other checkpoint.
std::optional<std::vector<Sidecar>> tombstone_sidecars_of(const Table& table,
                                                          const std::vector<storage::ObjectInfo>& parts) {
  LogActions top = read_checkpoint(table, parts, CheckpointRead::kTopLevel);
  if (top.sidecars.empty()) return std::nullopt;
  std::vector<Sidecar> tombstones;
  for (const auto& named : top.sidecars) {
    auto content = named.tags.find(kSidecarContentTag);
    auto rows = named.tags.find(kSidecarRowsTag);
    auto newest = named.tags.find(kSidecarNewestDeletionTag);
    if (content == named.tags.end() || rows == named.tags.end() || newest == named.tags.end()) return std::nullopt;
    if (content->second != "tombstones") continue;
    if (named.path.find('/') != std::string::npos || named.path.find('%') != std::string::npos) return std::nullopt;
    Sidecar sidecar;
    sidecar.name = named.path;
    sidecar.size = named.size;
    sidecar.content = content->second;
    try {
      sidecar.rows = std::stoll(rows->second);
      sidecar.newest_deletion_ms = std::stoll(newest->second);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    tombstones.push_back(std::move(sidecar));
  }
  return tombstones;
}

std::string dv_unique_id_sql(const std::string& dv) {
  return dv + ".storageType || " + dv + ".pathOrInlineDv || coalesce('@' || CAST(" + dv + ".\"offset\" AS VARCHAR), '')";
}

// Whether any tombstone in `sidecars` is of a file `added` (logical keys) names: added again after
// its removal, it must not stay a tombstone.
bool any_added_again(const Table& table, const std::vector<Sidecar>& sidecars, const std::set<std::string>& added) {
  if (sidecars.empty() || added.empty()) return false;
  std::set<std::string> paths;
  for (const auto& key : added) paths.insert(key.substr(0, key.find('\n')));
  std::string in_list;
  for (const auto& path : paths) in_list += (in_list.empty() ? "" : ", ") + sql::quote_literal(path);
  const std::string files = parquet_list(table, sidecars);
  std::unique_lock<std::mutex> turn;
  sql::Connection& con = LogDatabase::instance().connection(turn);
  sql::Rows rows = con.query("SELECT remove.path || CASE WHEN remove.deletionVector IS NULL THEN '' ELSE chr(10) || " +
                             dv_unique_id_sql("remove.deletionVector") + " END AS logical_key FROM read_parquet(" + files +
                             ", union_by_name = true) WHERE remove.path IN (" + in_list + ")");
  for (size_t r = 0; r < rows.size(); r++)
    if (added.count(rows.text(r, "logical_key"))) return true;
  return false;
}

}  // namespace

bool holds_only_tombstones(const LogActions::Sidecar& sidecar) {
  auto content = sidecar.tags.find(kSidecarContentTag);
  return content != sidecar.tags.end() && content->second == "tombstones";
}

std::string checkpoint_with_sidecars(const Snapshot& live, int64_t& actions) {
  const Table& table = live.table;
  const int64_t version = live.version;
  const int64_t expired_before = now_epoch_ms() - deleted_file_retention_ms(live.metadata);

  // The tombstones since the checkpoint before, when it is of this layout; else all of them.
  const LogListing listing = list_log_for(table, version);
  const int64_t previous = listing.checkpoint_at_or_below(version - 1);
  std::optional<std::vector<Sidecar>> kept;
  if (previous >= 0) kept = tombstone_sidecars_of(table, listing.checkpoints.at(previous));
  std::map<std::string, RemoveFile> fresh;  // by logical key
  if (kept) {
    std::set<std::string> added;
    for (auto& commit : read_commits(table, previous + 1, version)) {
      // Removes first, as the replay applies a commit (table/snapshot.cc).
      for (auto& removed : commit.removes) fresh[removed.logical_key()] = std::move(removed);
      for (const auto& file : commit.adds) {
        fresh.erase(file.logical_key());
        added.insert(file.logical_key());
      }
    }
    std::erase_if(*kept, [&](const Sidecar& sidecar) { return sidecar.newest_deletion_ms < expired_before; });
    if (any_added_again(table, *kept, added)) kept.reset();
  }
  if (!kept) {
    kept.emplace();
    fresh.clear();
    for (auto& removed : load_snapshot(table, version, Tombstones::kInclude).tombstones)
      fresh[removed.logical_key()] = std::move(removed);
  }
  std::vector<Sidecar>& tombstones = *kept;

  std::string lines;
  for (const auto& file : live.files) lines += add_action(file).dump() + "\n";
  const Sidecar files = write_sidecar_of_lines(table, version, "files", lines);
  lines.clear();
  for (const auto& [key, removed] : fresh)
    if (removed.deletion_timestamp >= expired_before) lines += remove_action(removed).dump() + "\n";
  if (!lines.empty()) tombstones.push_back(write_sidecar_of_lines(table, version, "tombstones", lines));
  // A binary counter's carries: the newest two merge while the newest holds at least half as many
  // as the one before it.
  while (tombstones.size() >= 2 && tombstones.back().rows * 2 >= tombstones[tombstones.size() - 2].rows) {
    std::vector<Sidecar> pair(tombstones.end() - 2, tombstones.end());
    tombstones.resize(tombstones.size() - 2);
    if (auto merged = merge_tombstones(table, version, pair, expired_before)) tombstones.push_back(std::move(*merged));
  }
  fault_point("checkpoint_sidecars_written");

  std::string top = files.action().dump() + "\n";
  actions = files.rows + 1;
  for (const auto& sidecar : tombstones) {
    top += sidecar.action().dump() + "\n";
    actions += sidecar.rows + 1;
  }
  return top;
}

}  // namespace lakestream::delta
