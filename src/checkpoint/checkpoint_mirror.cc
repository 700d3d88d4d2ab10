#include "checkpoint/checkpoint_mirror.h"

#include <unistd.h>

#include <algorithm>

#include "checkpoint/window_state_store.h"
#include "sql/duckdb.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

namespace {

constexpr const char* kStatePrefix = "state/";
constexpr const char* kSnapshotMark = "state.snapshot";  // in the working copy: the snapshot its state is

// The batch of a snapshot key "state/<N>.duckdb".
std::optional<int64_t> snapshot_batch(const std::string& key) {
  std::string name = key.substr(std::string(kStatePrefix).size());
  const std::string suffix = ".duckdb";
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  std::string digits = name.substr(0, name.size() - suffix.size());
  if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(digits);
}

std::string snapshot_key(int64_t batch) { return kStatePrefix + std::to_string(batch) + ".duckdb"; }

// The records of a checkpoint (not its lock, progress log or state).
bool is_record(const std::string& name) {
  return name == "metadata.json" || name == "idle.json" || name.rfind("batches/", 0) == 0;
}

// The last batch the local state committed; nullopt when it has none or cannot be read.
std::optional<int64_t> local_state_batch(const std::string& path) {
  if (!path_exists(path)) return std::nullopt;
  try {
    sql::Database db;
    sql::Connection con(db);
    con.exec("ATTACH " + sql::quote_literal(path) + " AS s (READ_ONLY)");
    auto v = con.scalar("SELECT value FROM s.meta WHERE key = 'last_batch'");
    if (!v) return std::nullopt;
    return std::stoll(*v);
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

CheckpointMirror::CheckpointMirror(std::unique_ptr<storage::ObjectStore> store, std::string local_dir)
    : store_(std::move(store)), local_dir_(std::move(local_dir)) {}

void CheckpointMirror::pull() {
  make_dirs(local_dir_ + "/batches", 0700);
  std::vector<std::string> on_store;
  for (const auto& object : store_->list("")) {
    if (!is_record(object.key)) continue;
    on_store.push_back(object.key);
    auto data = store_->get(object.key);
    if (!data) continue;  // removed since the listing
    std::string local = local_dir_ + "/" + object.key;
    if (!path_exists(local) || read_file(local) != *data) write_file_atomic(local, *data, 0600);
  }
  // What the working copy holds beyond the store is not the truth (a run elsewhere moved on, or
  // this copy is older than a restore): it goes.
  auto known = [&](const std::string& name) {
    return std::find(on_store.begin(), on_store.end(), name) != on_store.end();
  };
  for (const std::string& name : {"metadata.json", "idle.json"})
    if (!known(name)) ::unlink((local_dir_ + "/" + name).c_str());
  for (const auto& name : list_dir(local_dir_ + "/batches"))
    if (!known("batches/" + name)) ::unlink((local_dir_ + "/batches/" + name).c_str());
  sync_dir(local_dir_ + "/batches");
  sync_dir(local_dir_);
  pull_state();
}

void CheckpointMirror::pull_state() {
  std::string state = WindowStateStore::path_in(local_dir_);
  std::string mark_path = local_dir_ + "/" + kSnapshotMark;
  auto newest = newest_state_snapshot();
  std::optional<int64_t> mark;
  if (path_exists(mark_path)) {
    try {
      mark = std::stoll(read_file(mark_path));
    } catch (const std::exception&) {
      mark.reset();
    }
  }
  // The local state is that snapshot when it was uploaded or downloaded as it and no batch
  // committed to it since (a flushed outbox is the same state: its batch is in the table).
  if (newest && mark == newest && local_state_batch(state) == newest && !path_exists(state + ".wal")) return;
  ::unlink(mark_path.c_str());
  WindowStateStore::remove(local_dir_);
  if (!newest) return;
  auto data = store_->get(snapshot_key(*newest));
  if (!data)
    throw Error("the window state snapshot " + snapshot_key(*newest) + " vanished from " + store_->describe() +
                " while it was read; is another run of this stream removing it? Run again when only one runs.");
  write_file_atomic(state, *data, 0600);
  write_file_atomic(mark_path, std::to_string(*newest) + "\n", 0600);
}

void CheckpointMirror::push_once(const std::string& name) {
  std::string data = read_file(local_dir_ + "/" + name);
  if (store_->put_if_absent(name, data)) return;
  auto there = store_->get(name);
  if (there && *there == data) return;  // ours, from a try whose answer was lost
  throw Error("another run of this stream wrote " + name + " to its checkpoint " + store_->describe() +
              " first: two runners on different machines are running it. Only one runner per stream may run; "
              "stop the other one, then run again.");
}

void CheckpointMirror::push(const std::string& name) { store_->put(name, read_file(local_dir_ + "/" + name)); }

void CheckpointMirror::remove(const std::string& name) { store_->remove(name); }

void CheckpointMirror::remove_state_snapshots() {
  for (const auto& object : store_->list(kStatePrefix)) store_->remove(object.key);
  ::unlink((local_dir_ + "/" + kSnapshotMark).c_str());
}

std::optional<int64_t> CheckpointMirror::newest_state_snapshot() {
  std::optional<int64_t> newest;
  for (const auto& object : store_->list(kStatePrefix)) {
    auto batch = snapshot_batch(object.key);
    if (batch && (!newest || *batch > *newest)) newest = batch;
  }
  return newest;
}

void CheckpointMirror::push_state_snapshot(int64_t batch) {
  std::string mark_path = local_dir_ + "/" + kSnapshotMark;
  // Until the upload is done, the local state is no snapshot's.
  ::unlink(mark_path.c_str());
  std::string data = read_file(WindowStateStore::path_in(local_dir_));
  if (!store_->put_if_absent(snapshot_key(batch), data)) {
    auto there = store_->get(snapshot_key(batch));
    if (!there || *there != data)
      throw Error("another run of this stream uploaded the window state of batch " + std::to_string(batch) + " to " +
                  store_->describe() + " first: two runners on different machines are running it. Only one runner "
                  "per stream may run; stop the other one, then run again.");
  }
  write_file_atomic(mark_path, std::to_string(batch) + "\n", 0600);
  // The new snapshot is there: the older ones are no longer needed to recover.
  for (const auto& object : store_->list(kStatePrefix)) {
    auto older = snapshot_batch(object.key);
    if (older && *older < batch) store_->remove(object.key);
  }
}

}  // namespace lakestream
