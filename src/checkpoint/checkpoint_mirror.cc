#include "checkpoint/checkpoint_mirror.h"

#include <unistd.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "checkpoint/window_state_store.h"
#include "storage/sha256.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"

namespace lakestream {

namespace {

constexpr const char* kStatePrefix = "state/";
constexpr const char* kSnapshotMark = "state.snapshot";  // in the working copy: the snapshot its state is

// A snapshot is "state/<N>-<checksum>.duckdb": the window state after batch N, named with the
// first 32 hex digits of its SHA-256. The name vouches for the content: an upload cut short by a
// kill can be left on a store as an object holding what arrived (s3rver does so), and DuckDB
// cannot read such a file. Snapshots of an earlier release are "state/<N>.duckdb", unverified.
using SnapshotName = CheckpointMirror::SnapshotName;

std::string checksum_of(const std::string& data) { return storage::sha256_hex(data).substr(0, 32); }

std::optional<SnapshotName> parse_snapshot_key(const std::string& key) {
  std::string name = key.substr(std::string(kStatePrefix).size());
  const std::string suffix = ".duckdb";
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return std::nullopt;
  name.resize(name.size() - suffix.size());
  SnapshotName snapshot{key, 0, ""};
  auto dash = name.find('-');
  if (dash != std::string::npos) {
    snapshot.checksum = name.substr(dash + 1);
    name.resize(dash);
    if (snapshot.checksum.size() != 32 || snapshot.checksum.find_first_not_of("0123456789abcdef") != std::string::npos)
      return std::nullopt;
  }
  if (name.empty() || name.size() > 18 || name.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  snapshot.batch = std::stoll(name);
  return snapshot;
}

std::string snapshot_key(int64_t batch, const std::string& data) {
  return kStatePrefix + std::to_string(batch) + "-" + checksum_of(data) + ".duckdb";
}

bool is_whole(const SnapshotName& snapshot, const std::string& data) {
  return snapshot.checksum.empty() || checksum_of(data) == snapshot.checksum;
}

// The records of a checkpoint (not its lock, progress log or state).
bool is_record(const std::string& name) {
  return name == "metadata.json" || name == "idle.json" || name.rfind("batches/", 0) == 0;
}

// The last batch the local state committed; nullopt when it has none or cannot be read.
std::optional<int64_t> local_state_batch(const std::string& path) {
  try {
    auto meta = read_window_state_meta(path);
    if (!meta || meta->last_batch < 0) return std::nullopt;
    return meta->last_batch;
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace

bool is_cut_short_record(const std::string& data) { return nlohmann::json::parse(data, nullptr, false).is_discarded(); }

CheckpointMirror::CheckpointMirror(std::unique_ptr<storage::ObjectStore> store, std::string local_dir)
    : store_(std::move(store)), local_dir_(std::move(local_dir)) {}

void CheckpointMirror::pull() {
  make_dirs(local_dir_ + "/batches", 0700);
  std::vector<std::string> on_store;
  for (const auto& object : store_->list("")) {
    if (!is_record(object.key)) continue;
    auto data = store_->get(object.key);
    if (!data) continue;  // removed since the listing
    // A record that is not JSON is an upload a kill cut short, on a store that keeps what arrived
    // (s3rver). A plan is uploaded before its batch reads or writes anything, and the metadata
    // before the first batch: nothing depends on it, and it is planned again. The working copy's
    // whole file of it goes too: kept, it would be run here as a plan the store never holds, and
    // the stream would be stuck once the working copy is lost (its batch in the table, its plan
    // nowhere, so planned again and refused as another runner's).
    if (is_cut_short_record(*data)) {
      store_->remove(object.key);
      continue;
    }
    on_store.push_back(object.key);
    std::string local = local_dir_ + "/" + object.key;
    if (!path_exists(local) || read_file(local) != *data) write_file_atomic(local, *data, 0600);
  }
  // What the working copy holds beyond the store is not the truth (a run elsewhere moved on, or
  // this copy is older than a restore): it goes.
  auto known = [&](const std::string& name) {
    return std::find(on_store.begin(), on_store.end(), name) != on_store.end();
  };
  for (const char* name : {"metadata.json", "idle.json"})
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
  std::vector<SnapshotName> snapshots = state_snapshots();
  std::string mark = path_exists(mark_path) ? read_file(mark_path) : "";
  while (!mark.empty() && mark.back() == '\n') mark.pop_back();
  // The local state is that snapshot when it was uploaded or downloaded as it and no batch
  // committed to it since (a flushed outbox is the same state: its batch is in the table).
  if (!snapshots.empty() && mark == snapshots.front().key &&
      local_state_batch(state) == snapshots.front().batch && !path_exists(state + ".wal"))
    return;
  ::unlink(mark_path.c_str());
  WindowStateStore::remove(local_dir_);
  for (size_t i = 0; i < snapshots.size(); i++) {
    const SnapshotName& snapshot = snapshots[i];
    auto data = store_->get(snapshot.key);
    if (data && !is_whole(snapshot, *data)) data = store_->get(snapshot.key);  // a download cut short, once
    if (!data)
      throw Error("the window state snapshot " + snapshot.key + " vanished from " + store_->describe() +
                  " while it was read; is another run of this stream removing it? Run again when only one runs.");
    if (!is_whole(snapshot, *data)) {
      // An upload a kill cut short. Its batch's table commit never happened (it comes after the
      // upload), and the snapshot before it is still there (older ones go only once a newer one
      // is whole): the batch runs again from that one. Before batch 0 the state is empty. A
      // damaged snapshot with nothing before it to fall back to was damaged after its upload:
      // starting from empty state would count windows again.
      if (i + 1 == snapshots.size() && snapshot.batch != 0)
        throw Error("the window state snapshot " + snapshot.key + " on " + store_->describe() +
                    " is damaged (its content is not what its name says) and no older snapshot is there to "
                    "recover from. Restore it from a backup of the store, or start the stream over: delete its "
                    "checkpoint and its table, then run (or `lakestream replay` it into a new table).");
      store_->remove(snapshot.key);
      continue;
    }
    write_file_atomic(state, *data, 0600);
    write_file_atomic(mark_path, snapshot.key + "\n", 0600);
    return;
  }
}

void CheckpointMirror::push_once(const std::string& name) {
  std::string data = read_file(local_dir_ + "/" + name);
  // A kill mid-upload, on a store that keeps what arrived of it (s3rver does): half the record.
  if (fault_is_next("mid_record_upload")) store_->put(name, data.substr(0, data.size() / 2));
  fault_point("mid_record_upload");
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

std::vector<CheckpointMirror::SnapshotName> CheckpointMirror::state_snapshots() {
  std::vector<SnapshotName> snapshots;
  for (const auto& object : store_->list(kStatePrefix))
    if (auto snapshot = parse_snapshot_key(object.key)) snapshots.push_back(*snapshot);
  std::sort(snapshots.begin(), snapshots.end(),
            [](const SnapshotName& a, const SnapshotName& b) { return a.batch > b.batch; });
  return snapshots;
}

std::optional<int64_t> CheckpointMirror::newest_state_snapshot() {
  auto snapshots = state_snapshots();
  if (snapshots.empty()) return std::nullopt;
  return snapshots.front().batch;
}

void CheckpointMirror::push_state_snapshot(int64_t batch) {
  std::string mark_path = local_dir_ + "/" + kSnapshotMark;
  // Until the upload is done, the local state is no snapshot's.
  ::unlink(mark_path.c_str());
  std::string data = read_file(WindowStateStore::path_in(local_dir_));
  std::string key = snapshot_key(batch, data);
  // A kill mid-upload, on a store that keeps what arrived of it (s3rver does): half the snapshot.
  if (fault_is_next("mid_state_upload")) store_->put(key, data.substr(0, data.size() / 2));
  fault_point("mid_state_upload");
  if (!store_->put_if_absent(key, data)) {
    // The same name is the same content: an earlier try of this very state. If that try was cut
    // short, what it left is replaced.
    auto there = store_->get(key);
    if (!there || *there != data) store_->put(key, data);
  }
  write_file_atomic(mark_path, key + "\n", 0600);
  // The new snapshot is whole on the store: the older ones (and any other of this batch, cut
  // short) are no longer needed to recover.
  for (const SnapshotName& other : state_snapshots())
    if (other.batch <= batch && other.key != key) store_->remove(other.key);
}

}  // namespace lakestream
