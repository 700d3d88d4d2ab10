// The newest txn version of a streaming writer, found from the newest commit back: what every
// stream asks first, and all that a run with nothing new needs of its table.
#include "table/delta_table.h"
#include "table/log_files.h"
#include "util/cpu_profile.h"

namespace lakestream::delta {

namespace {
// How many JSON commits to read back before replaying the log instead: a stream's own last
// commit is nearly always the newest one or close to it.
constexpr int64_t kCommitsToReadBack = 20;
}  // namespace

int64_t txn_version(const Table& table, const std::string& app_id) {
  CpuScope cpu_scope("txn_version");
  if (auto remembered = remembered_txn_version(table, app_id)) return *remembered;
  LogListing listing = list_log_for(table);
  int64_t latest = listing.latest();
  if (latest < 0) return -1;
  // A txn is set by a commit and carried by every checkpoint after it, so the newest commit
  // that sets it holds its current value. Reading JSON commits only (no Parquet checkpoint,
  // hence no DuckDB) keeps a run with nothing new at a few milliseconds.
  for (int64_t v = latest; v >= 0 && v > latest - kCommitsToReadBack; v--) {
    if (!listing.commits.count(v)) break;  // cleaned up: the checkpoint has the rest
    CommitEntry commit = std::move(read_commits(table, v, v).front());
    auto found = commit.txns.find(app_id);
    if (found != commit.txns.end()) return found->second;
  }
  return load_snapshot(table).txn_version(app_id);
}

}  // namespace lakestream::delta
