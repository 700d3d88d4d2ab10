// The files of `_delta_log/`: their names, and which commits and checkpoints a table holds.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/object_store.h"
#include "table/table.h"

namespace lakestream::delta {

std::string log_dir(const std::string& table_path);
// `<table>/_delta_log/00000000000000000007.json`
std::string commit_file_path(const std::string& table_path, int64_t version);
// `_delta_log/00000000000000000007.json`: the commit's key in the table (table/table_files.h).
std::string commit_key(int64_t version);

struct LogListing {
  std::set<int64_t> commits;                              // versions with a JSON commit file
  // version -> its complete set of parquet files (keys in the table, sizes)
  std::map<int64_t, std::vector<storage::ObjectInfo>> checkpoints;
  // The newest version the log can produce (-1 when it is empty).
  int64_t latest() const;
  // The newest checkpoint at or below `version`, or -1.
  int64_t checkpoint_at_or_below(int64_t version) const;
};

// Lists the log folder (on an object store: every page, never a cached listing). Multi-part
// checkpoints count only when all their parts are there. A v2 checkpoint
// (`<version>.checkpoint.<uuid>.parquet` or `.json`) is listed as its top-level file; its
// sidecars are found by reading it (table/checkpoint_reader.h).
LogListing list_log(const Table& table);

// The same from a listing already made: the files among `files` whose keys are under
// `_delta_log/` (the others are skipped), e.g. vacuum's one listing of the whole table.
LogListing log_listing_of(const std::vector<storage::ObjectInfo>& files);

// The log from the checkpoint `_last_checkpoint` names on, without listing the folder: that
// checkpoint's files, and the commits after it found by asking for each next name until one is
// missing (commits are put-if-absent and consecutive, so none after it is skipped; a newer
// checkpoint the hint does not name only means more JSON to replay). A log keeps a file per commit
// for delta.logRetentionDuration (30 days by default): listing it all costs more each day, this
// costs the commits since the last checkpoint. On an object store, where a request is a round
// trip, the versions from the hint's on are listed ten at a time by key prefix instead. nullopt
// when there is no hint or the files it names are not all there (list_log then).
std::optional<LogListing> list_log_tail(const Table& table);

// What a reader of `version` (the newest when nullopt) needs of the log: list_log_tail when it
// reaches back to that version, list_log otherwise.
LogListing list_log_for(const Table& table, std::optional<int64_t> version = std::nullopt);

}  // namespace lakestream::delta
