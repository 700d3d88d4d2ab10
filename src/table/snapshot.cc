// Log replay: a Snapshot is a checkpoint at or below the wanted version plus the JSON commits
// after it. A table's newest state starts from the checkpoint `_last_checkpoint` names, the
// commits after it found one by one locally, ten versions to a listing on a store (list_log_tail:
// a stale hint means more JSON, never a missed commit); an older version or a log without the
// hint is listed whole.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "table/checkpoint_reader.h"
#include "table/delta_log_json.h"
#include "table/delta_table.h"
#include "table/log_files.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::delta {

namespace {

std::atomic<bool> remembering{false};

// The texts of the commits last read from tables on a store, while remember_checkpoints() is on.
// A commit is written once (put-if-absent) and never changed, and in a service each one is read
// by every stream downstream of its table, the key index and the compaction thread besides the
// replay: a GET each, where one does. The newest kCommitTextBytes are kept; a table found made
// again drops its own.
class CommitTexts {
 public:
  static constexpr size_t kCommitTextBytes = 16 << 20;

  std::optional<std::string> find(const std::string& table, int64_t version) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = texts_.find({table, version});
    if (it == texts_.end()) return std::nullopt;
    return it->second;
  }
  void keep(const std::string& table, int64_t version, const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!texts_.emplace(std::make_pair(table, version), text).second) return;
    order_.emplace_back(table, version);
    bytes_ += text.size();
    while (bytes_ > kCommitTextBytes && !order_.empty()) {
      auto oldest = texts_.find(order_.front());
      if (oldest != texts_.end()) {
        bytes_ -= oldest->second.size();
        texts_.erase(oldest);
      }
      order_.pop_front();
    }
  }
  void forget(const std::string& table) {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = texts_.lower_bound({table, INT64_MIN}); it != texts_.end() && it->first.first == table;) {
      bytes_ -= it->second.size();
      it = texts_.erase(it);
    }
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    texts_.clear();
    order_.clear();
    bytes_ = 0;
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, int64_t>, std::string> texts_;
  std::deque<std::pair<std::string, int64_t>> order_;  // oldest kept first (some maybe forgotten)
  size_t bytes_ = 0;
};
CommitTexts commit_texts;

// The commits this process tried to publish on a store, as written, while remember_checkpoints()
// is on: a conflict at a version whose commit is one of them lost to the process itself (two of
// its writers on one table, or its own put whose answer was lost and whose retry found it there),
// not to another process. Asked by what the store holds, so that no order of the writers'
// threads can make the process's own commit look like another's. The newest kAttempts are kept,
// each as a hash of its text (a commit of a large rewrite is megabytes; two texts that differ but
// hash alike would only keep a trust that a next conflict ends).
class CommitAttempts {
 public:
  static constexpr size_t kAttempts = 4096;

  void add(const std::string& table, int64_t version, const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    attempts_.emplace(std::make_pair(table, version), std::hash<std::string>{}(text));
    order_.emplace_back(table, version);
    while (order_.size() > kAttempts) {
      auto oldest = attempts_.find(order_.front());
      if (oldest != attempts_.end()) attempts_.erase(oldest);
      order_.pop_front();
    }
  }
  bool made(const std::string& table, int64_t version, const std::string& text) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [first, last] = attempts_.equal_range({table, version});
    const size_t hash = std::hash<std::string>{}(text);
    return std::any_of(first, last, [&](const auto& attempt) { return attempt.second == hash; });
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    attempts_.clear();
    order_.clear();
  }

 private:
  std::mutex mutex_;
  std::multimap<std::pair<std::string, int64_t>, size_t> attempts_;  // text hashes
  std::deque<std::pair<std::string, int64_t>> order_;  // oldest first
};
CommitAttempts commit_attempts;

// The text of commit `version`, nullopt when there is none.
std::optional<std::string> commit_text(const Table& table, int64_t version) {
  const bool kept = remembering && table.is_remote();
  if (kept)
    if (auto text = commit_texts.find(table.path(), version)) return text;
  std::optional<std::string> text = read_table_file(table, commit_key(version));
  if (kept && text) commit_texts.keep(table.path(), version, *text);
  return text;
}

LogActions read_commit_file(const Table& table, int64_t version) {
  std::string path = commit_file_path(table.path(), version);
  std::optional<std::string> text = commit_text(table, version);
  if (!text)
    throw Error("version " + std::to_string(version) + " of table " + table.path() + " is missing: there is no " + path +
                " (removed by log clean-up, or the log was copied partly); read a newer version, or restore the file");
  return parse_commit_text(*text, path);
}

// The checkpoint last read of each table, while remember_checkpoints() is on. A checkpoint file is
// written once under its final name and never changed, so its parts as listed (keys, sizes,
// modification times) identify its content; anything else listed means a read from the store.
struct RememberedCheckpoint {
  std::vector<storage::ObjectInfo> parts;
  std::shared_ptr<const LogActions> actions;
};
std::mutex remembered_mutex;
std::map<std::string, RememberedCheckpoint> remembered;

bool same_parts(const std::vector<storage::ObjectInfo>& a, const std::vector<storage::ObjectInfo>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.key == y.key && x.size == y.size && x.modified_ms == y.modified_ms;
  });
}

// The checkpoint's actions; its removes (the tombstones it carries on) only when asked. What is
// remembered holds none: a service that compacts as it runs gathers tens of thousands of
// tombstones an hour, kept a week, and only a checkpoint being written reads them (the hour soak
// grew the service's memory by 150 MB holding them).
LogActions checkpoint_actions(const Table& table, const std::vector<storage::ObjectInfo>& parts,
                              Tombstones tombstones) {
  if (tombstones == Tombstones::kInclude) return read_checkpoint(table, parts);
  auto without_tombstones = [&] {
    LogActions actions = read_checkpoint(table, parts, CheckpointRead::kWithoutTombstoneSidecars);
    std::vector<RemoveFile>().swap(actions.removes);
    return actions;
  };
  if (!remembering) return without_tombstones();
  {
    std::lock_guard<std::mutex> lock(remembered_mutex);
    auto it = remembered.find(table.path());
    if (it != remembered.end() && same_parts(it->second.parts, parts)) return *it->second.actions;
  }
  auto actions = std::make_shared<const LogActions>(without_tombstones());
  std::lock_guard<std::mutex> lock(remembered_mutex);
  remembered[table.path()] = {parts, actions};
  return *actions;
}

// The live-file set while replaying: keeps the order files were added in, so that scans and
// listings are stable from one load to the next.
// A file is known by its path and deletion vector (AddFile::logical_key): a DELETE that writes a
// vector removes the file with its old vector and adds it with the new one. One path has one live
// entry: the newest add of it wins (the protocol's reconciliation).
class FileSet {
 public:
  void add(AddFile file) {
    std::string key = file.logical_key();
    auto same_path = key_by_path_.find(file.path);
    if (same_path != key_by_path_.end() && same_path->second != key) files_.erase(same_path->second);
    key_by_path_[file.path] = key;
    files_[key] = {next_order_++, std::move(file)};
  }
  void remove(const RemoveFile& removed) {
    auto same_path = key_by_path_.find(removed.path);
    if (same_path == key_by_path_.end()) return;
    // The live entry of that path, when the remove names it; a remove that leaves out the vector
    // (written by a writer that knows no vectors) means the file of that path too.
    if (same_path->second != removed.logical_key() && removed.deletion_vector) return;
    files_.erase(same_path->second);
    key_by_path_.erase(same_path);
  }
  // The version of the live file at `path`, if there is one.
  std::optional<int64_t> version_of(const std::string& path) const {
    auto same_path = key_by_path_.find(path);
    if (same_path == key_by_path_.end()) return std::nullopt;
    return files_.at(same_path->second).second.version;
  }
  std::vector<AddFile> in_order() const {
    std::vector<const std::pair<int64_t, AddFile>*> ordered;
    ordered.reserve(files_.size());
    for (const auto& [path, entry] : files_) ordered.push_back(&entry);
    std::sort(ordered.begin(), ordered.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
    std::vector<AddFile> out;
    out.reserve(ordered.size());
    for (const auto* entry : ordered) out.push_back(entry->second);
    return out;
  }

 private:
  std::unordered_map<std::string, std::pair<int64_t, AddFile>> files_;  // by logical key
  std::unordered_map<std::string, std::string> key_by_path_;              // path -> its live entry's key
  int64_t next_order_ = 0;
};

struct Replay {
  std::optional<Protocol> protocol;
  std::optional<Metadata> metadata;
  // The version of the newest protocol or metaData action (a checkpoint's version for those it
  // carries): the shape is the same for every version from there on.
  int64_t shape_version = -1;
  FileSet files;
  std::map<std::string, int64_t> txns;
  std::map<std::string, int64_t> txn_last_updated;
  // Kept only for a snapshot asked with its tombstones (a checkpoint's): never in a remembered one.
  bool keep_tombstones = false;
  std::map<std::string, RemoveFile> tombstones;
  std::map<std::string, std::string> domains;

  // `version` is what readers see as the file's version: for files from a checkpoint, the
  // checkpoint's (the commit that added them may be gone).
  void apply(LogActions actions, int64_t version) {
    if (actions.protocol || actions.metadata) shape_version = version;
    if (actions.protocol) protocol = actions.protocol;
    if (actions.metadata) metadata = std::move(actions.metadata);
    // Removes first: within one commit a file's path may be removed with one vector and added
    // with another, in either order. Such a re-add holds no new rows: the file keeps the version
    // that added its rows.
    std::map<std::string, int64_t> removed_versions;
    for (const auto& removed : actions.removes) {
      if (auto was = files.version_of(removed.path)) removed_versions[removed.path] = *was;
      files.remove(removed);
      if (keep_tombstones) tombstones[removed.logical_key()] = removed;
    }
    for (auto& added : actions.adds) {
      auto was = removed_versions.find(added.path);
      added.version = was != removed_versions.end() && added.deletion_vector ? was->second : version;
      if (keep_tombstones) tombstones.erase(added.logical_key());
      files.add(std::move(added));
    }
    for (const auto& [app, txn_version] : actions.txns) {
      txns[app] = txn_version;
      auto last = actions.txn_last_updated.find(app);
      if (last != actions.txn_last_updated.end()) txn_last_updated[app] = last->second;
      else txn_last_updated.erase(app);
    }
    for (auto& [domain, configuration] : actions.domains) {
      if (configuration) domains[domain] = std::move(*configuration);
      else domains.erase(domain);
    }
  }
};

// The newest replay of each table, while remember_checkpoints() is on: a later snapshot applies
// only the commits after it, found by reading the next commit files until one is missing
// (commits are put-if-absent and consecutive, so the first missing one ends the log), with no
// listing of the log and no parse of the commits it already applied. A file keeps the version of
// the commit that added it, also past a checkpoint (only check reads that version, in a process
// of its own). On an object store this is two GETs for a table with nothing new (the next
// commit, not there; the newest, still there), where a listed snapshot costs a GET of
// _last_checkpoint, a listing and a GET per commit since the checkpoint: the store soak's service
// sent 25 requests per commit, and Azurite's CPU for them left its two cores no room.
// Each table's replay has a lock of its own: on a store its reads are round trips, which the
// snapshots of other tables (other streams' threads) do not wait for.
//
// On a store the log's end, once seen, is trusted for 200 ms (trust_log_end_for): a batch asks
// for the newest snapshot of each of its tables several times (its txn, its plan, its commit; each
// stream downstream of a table too), and each ask was those two GETs; the service sent 9 GETs of
// commits per commit it made. A snapshot that trusts the end is one taken up to that much
// earlier, which any reader may be given: a commit built on it is put-if-absent at the next
// version, so a writer it missed makes a conflict (which forgets the trusted end,
// forget_log_end), never a lost write; a commit this process published is kept
// (remember_published_commit) and applied at once, so a stream downstream in the same process
// waits for none of it. Another process's commits show up at most 200 ms later. A table another
// process commits to (a conflict whose winning commit is none this process tried to put,
// CommitAttempts: ingest workers sharing a bronze table) is looked at by every snapshot for
// kAnotherWriterDistrust after: there a trusted end would make a conflict, a commit's files
// written again, of most commits.
// LAKESTREAM_LOG_END_TRUST_MS sets another time (0: never trusted): a test makes a stale
// snapshot's cost plain with a longer one, and an operator can rule the trust out when looking
// into a store's behaviour. Read when a service starts remembering (remember_checkpoints).
int64_t initial_log_end_trust_ms() {
  const char* given = std::getenv("LAKESTREAM_LOG_END_TRUST_MS");
  if (!given || !*given) return 200;
  char* end = nullptr;
  const long long ms = std::strtoll(given, &end, 10);
  // Up to an hour: a trust longer than that is no service's, and far longer ones would overflow
  // the clock's arithmetic.
  if (*end != '\0' || ms < 0 || ms > 3'600'000)
    throw Error(std::string("LAKESTREAM_LOG_END_TRUST_MS is \"") + given +
                "\": give a whole number of milliseconds from 0 to 3600000 (the default is 200)");
  return ms;
}
std::atomic<int64_t> log_end_trusted_ms{-1};  // -1: not read from the environment yet
constexpr std::chrono::minutes kAnotherWriterDistrust{10};

struct RememberedReplay {
  std::mutex mutex;
  int64_t version = -1;  // -1: being made
  Replay replay;
  // When the next commit was last found missing and the newest there (on a store); never: the
  // clock's epoch.
  std::chrono::steady_clock::time_point end_seen_at{};
  // When a commit of this process's last lost its version to another process's.
  std::optional<std::chrono::steady_clock::time_point> another_writer_at;
};
std::map<std::string, std::shared_ptr<RememberedReplay>> replays;  // under remembered_mutex

// Drops `kept` as the remembered replay of `table` (unless another has taken its place).
void forget_replay(const std::string& table, const std::shared_ptr<RememberedReplay>& kept) {
  std::lock_guard<std::mutex> lock(remembered_mutex);
  auto it = replays.find(table);
  if (it != replays.end() && it->second == kept) replays.erase(it);
}

// Whether commit `version` of `table` is still there: a table deleted and made again with fewer
// versions has lost it. Locally a stat; on a store a round trip.
bool commit_still_there(const std::string& table, int64_t version) {
  return is_remote_table(table) ? read_table_file(table, commit_key(version)).has_value()
                                : path_exists(commit_file_path(table, version));
}

// Runs `use` on the remembered replay of `table` advanced to `target` (the newest commit when
// nullopt), under its lock; false when there is none to go on (not remembering, nothing
// remembered, a wanted version older than it, or its newest commit gone: the table was made
// again). The remembered replay only moves forward.
bool with_advanced_replay(const std::string& table, std::optional<int64_t> target,
                          const std::function<void(const RememberedReplay&)>& use) {
  if (!remembering) return false;
  std::shared_ptr<RememberedReplay> found;
  {
    std::lock_guard<std::mutex> lock(remembered_mutex);
    auto it = replays.find(table);
    if (it == replays.end()) return false;
    found = it->second;
  }
  std::lock_guard<std::mutex> lock(found->mutex);
  RememberedReplay& kept = *found;
  if (kept.version < 0 || (target && *target < kept.version)) return false;
  // On a store asked only when no newer commit shows the log goes on (a round trip).
  const bool remote = is_remote_table(table);
  if (!remote && !commit_still_there(table, kept.version)) {
    forget_replay(table, found);
    return false;
  }
  const auto now = std::chrono::steady_clock::now();
  const bool end_trusted = remote && !target &&
                           now - kept.end_seen_at < std::chrono::milliseconds(log_end_trusted_ms.load()) &&
                           !(kept.another_writer_at && now - *kept.another_writer_at < kAnotherWriterDistrust);
  bool advanced = false;
  while (!target || kept.version < *target) {
    // With the end trusted, only the commits this process published or read since.
    std::optional<std::string> text =
        end_trusted ? commit_texts.find(table, kept.version + 1) : commit_text(table, kept.version + 1);
    if (!text) break;
    LogActions actions = parse_commit_text(*text, commit_file_path(table, kept.version + 1));
    kept.version++;
    kept.replay.apply(std::move(actions), kept.version);
    advanced = true;
  }
  if (remote && !advanced && !end_trusted && !commit_still_there(table, kept.version)) {
    forget_replay(table, found);
    commit_texts.forget(table);
    return false;
  }
  if (remote && !target && !end_trusted) kept.end_seen_at = now;
  if (target && kept.version != *target) return false;  // the listing says what is wrong
  use(kept);
  return true;
}

void remember_replay(const std::string& table, int64_t version, const Replay& replay) {
  if (!remembering) return;
  std::shared_ptr<RememberedReplay> entry;
  {
    std::lock_guard<std::mutex> lock(remembered_mutex);
    auto& slot = replays[table];
    if (!slot) slot = std::make_shared<RememberedReplay>();
    entry = slot;
  }
  std::lock_guard<std::mutex> lock(entry->mutex);
  RememberedReplay& kept = *entry;
  if (kept.version > version && commit_still_there(table, kept.version)) return;
  kept.version = version;
  kept.replay = replay;
}

// The protocol and metaData of version `target` that `replay` holds, checked readable.
Snapshot shape_of(Snapshot snapshot, const Replay& replay, int64_t target);

// The snapshot of version `target` that `replay` holds, checked readable: copied, since a
// remembered replay lives on, and without its tombstones unless asked (only a checkpoint carries
// them on, and a long run's compactions make them the largest part).
Snapshot snapshot_of(Snapshot snapshot, const Replay& replay, int64_t target, Tombstones tombstones);

}  // namespace

void remember_published_commit(const Table& table, int64_t version, const std::string& text) {
  if (remembering && table.is_remote()) commit_texts.keep(table.normal().path(), version, text);
}

void remember_commit_attempt(const Table& table, int64_t version, const std::string& text) {
  if (remembering && table.is_remote()) commit_attempts.add(table.normal().path(), version, text);
}

void trust_log_end_for(std::chrono::milliseconds span) { log_end_trusted_ms = span.count(); }

void forget_log_end(const Table& table, int64_t taken) {
  if (!remembering || !table.is_remote()) return;
  const std::string path = normal_table_path(table.path());
  std::shared_ptr<RememberedReplay> found;
  {
    std::lock_guard<std::mutex> lock(remembered_mutex);
    auto it = replays.find(path);
    if (it == replays.end()) return;
    found = it->second;
  }
  // The commit that took the version: kept when this process published or read it, else a GET.
  // Unread (the store failing), it is taken for the process's own: the conflict still goes back
  // to the store, and a next conflict asks again.
  bool ours = true;
  try {
    std::optional<std::string> winner = commit_text(path, taken);
    ours = !winner || commit_attempts.made(path, taken, *winner);
  } catch (const std::exception&) {
  }
  std::lock_guard<std::mutex> lock(found->mutex);
  found->end_seen_at = {};
  if (!ours) found->another_writer_at = std::chrono::steady_clock::now();
}

void remember_checkpoints(bool remember) {
  if (remember) {
    // Read here, so that a bad LAKESTREAM_LOG_END_TRUST_MS is refused before any batch.
    if (log_end_trusted_ms.load() < 0) log_end_trusted_ms = initial_log_end_trust_ms();
    remembering = true;
    return;
  }
  remembering = false;
  std::lock_guard<std::mutex> lock(remembered_mutex);
  remembered.clear();
  replays.clear();
  commit_texts.clear();
  commit_attempts.clear();
}

std::optional<int64_t> remembered_txn_version(const Table& table, const std::string& app_id) {
  int64_t found = -1;
  if (!with_advanced_replay(normal_table_path(table.path()), std::nullopt, [&](const RememberedReplay& kept) {
        auto it = kept.replay.txns.find(app_id);
        if (it != kept.replay.txns.end()) found = it->second;
      }))
    return std::nullopt;
  return found;
}

int64_t Snapshot::txn_version(const std::string& app_id) const {
  auto it = txn_versions.find(app_id);
  return it == txn_versions.end() ? -1 : it->second;
}

Snapshot with_files(const Snapshot& snapshot, std::vector<AddFile> files) {
  Snapshot part;
  part.table = snapshot.table;
  part.version = snapshot.version;
  part.min_reader_version = snapshot.min_reader_version;
  part.min_writer_version = snapshot.min_writer_version;
  part.reader_features = snapshot.reader_features;
  part.writer_features = snapshot.writer_features;
  part.metadata = snapshot.metadata;
  part.files = std::move(files);
  return part;
}

int64_t latest_version(const Table& table) {
  CpuScope cpu_scope("latest_version");
  int64_t newest = -1;
  if (with_advanced_replay(normal_table_path(table.path()), std::nullopt,
                           [&](const RememberedReplay& kept) { newest = kept.version; }))
    return newest;
  return list_log_for(table).latest();
}

int64_t oldest_commit(const Table& table) {
  LogListing listing = list_log(table);
  return listing.commits.empty() ? 0 : *listing.commits.begin();
}

Snapshot load_snapshot(const Table& wanted, std::optional<int64_t> version, Tombstones tombstones) {
  CpuScope cpu_scope("load_snapshot");
  Snapshot snapshot;
  snapshot.table = wanted.normal();
  const Table& table = snapshot.table;
  // A remembered replay holds no tombstones: a snapshot with them is replayed from the log.
  const bool with_tombstones = tombstones == Tombstones::kInclude;
  std::optional<Snapshot> remembered;
  if (!with_tombstones && with_advanced_replay(table.path(), version, [&](const RememberedReplay& kept) {
        remembered = snapshot_of(snapshot, kept.replay, kept.version, tombstones);
      }))
    return std::move(*remembered);
  LogListing listing = list_log_for(table, version);
  int64_t newest = listing.latest();
  if (newest < 0) {
    if (version && *version >= 0)
      throw Error("cannot read version " + std::to_string(*version) + " of table " + table.path() +
                  ": there is no Delta table there (no commits in " + log_dir(table.path()) + ")");
    return snapshot;
  }
  int64_t target = version ? *version : newest;
  if (target < 0 || target > newest)
    throw Error("table " + table.path() + " has no version " + std::to_string(target) + "; its versions go up to " +
                std::to_string(newest));

  Replay replay;
  replay.keep_tombstones = with_tombstones;
  int64_t checkpoint = listing.checkpoint_at_or_below(target);
  if (checkpoint >= 0)
    replay.apply(checkpoint_actions(table, listing.checkpoints.at(checkpoint), tombstones), checkpoint);
  for (int64_t v = checkpoint + 1; v <= target; v++) replay.apply(read_commit_file(table, v), v);
  if (!with_tombstones) remember_replay(table.path(), target, replay);
  return snapshot_of(std::move(snapshot), replay, target, tombstones);
}

Snapshot load_table_shape(const Table& table, int64_t version) {
  CpuScope cpu_scope("load_table_shape");
  Snapshot shape;
  shape.table = table.normal();
  std::optional<Snapshot> remembered;
  with_advanced_replay(shape.table.path(), std::nullopt, [&](const RememberedReplay& kept) {
    if (kept.version >= version && kept.replay.shape_version <= version)
      remembered = shape_of(shape, kept.replay, version);
  });
  if (remembered) return std::move(*remembered);
  Snapshot whole = load_snapshot(table, version);
  whole.files.clear();
  whole.txn_versions.clear();
  whole.txn_last_updated.clear();
  whole.domains.clear();
  return whole;
}

namespace {

Snapshot shape_of(Snapshot snapshot, const Replay& replay, int64_t target) {
  const std::string& table = snapshot.table.path();
  if (!replay.protocol)
    throw Error("table " + table + " has no protocol action up to version " + std::to_string(target) +
                "; its log is damaged (version 0 must hold protocol and metaData)");
  if (!replay.metadata)
    throw Error("table " + table + " has no metaData action up to version " + std::to_string(target) +
                "; its log is damaged (version 0 must hold protocol and metaData)");
  check_readable(*replay.protocol, *replay.metadata, table);

  snapshot.version = target;
  snapshot.min_reader_version = replay.protocol->min_reader_version;
  snapshot.min_writer_version = replay.protocol->min_writer_version;
  snapshot.reader_features = replay.protocol->reader_features;
  snapshot.writer_features = replay.protocol->writer_features;
  snapshot.metadata = *replay.metadata;
  return snapshot;
}

Snapshot snapshot_of(Snapshot snapshot, const Replay& replay, int64_t target, Tombstones tombstones) {
  snapshot = shape_of(std::move(snapshot), replay, target);
  snapshot.files = replay.files.in_order();
  snapshot.txn_versions = replay.txns;
  snapshot.txn_last_updated = replay.txn_last_updated;
  snapshot.domains = replay.domains;
  if (tombstones == Tombstones::kInclude)
    for (const auto& [path, removed] : replay.tombstones) snapshot.tombstones.push_back(removed);
  return snapshot;
}

}  // namespace

std::vector<CommitEntry> read_commits(const Table& wanted, int64_t from, int64_t to) {
  CpuScope cpu_scope("read_commits");
  Table table = wanted.normal();
  std::vector<CommitEntry> entries;
  for (int64_t v = std::max<int64_t>(from, 0); v <= to; v++) {
    LogActions actions = read_commit_file(table, v);
    if (actions.protocol) check_readable(*actions.protocol, actions.metadata.value_or(Metadata{}), table.path());
    CommitEntry entry;
    entry.version = v;
    for (auto& added : actions.adds) added.version = v;
    entry.adds = std::move(actions.adds);
    entry.removes = std::move(actions.removes);
    entry.change_data = std::move(actions.change_data);
    entry.txns = std::move(actions.txns);
    entry.changes_metadata = actions.metadata.has_value();
    entry.commit_info = std::move(actions.commit_info);
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace lakestream::delta
