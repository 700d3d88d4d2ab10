// A checkpoint kept on an object store (S3, Azure Blob / ADLS Gen2), so that a stream can move to
// another machine and go on exactly once. The store is the truth; the run reads and writes a local
// working copy (the folder Checkpoint uses) and mirrors each durable step to the store before the
// step after it:
//   metadata.json, batches/<N>.json   written once (put_if_absent); a different object already
//                                     there means another runner: refused; a record that
//                                     is not JSON is an upload a kill cut short, and pull()
//                                     drops it from the store and the working copy alike
//   idle.json                         replaced, or removed before any work starts
//   state/<N>-<checksum>.duckdb       the window state after batch N's state transaction (state and
//                                     outbox), uploaded once before batch N's table commit; older
//                                     snapshots are removed once a newer one is whole there. The
//                                     checksum (of the content) finds an upload a kill cut short on
//                                     a store that keeps what arrived: it is skipped, and its batch
//                                     runs again from the snapshot before it
// On start, pull() makes the working copy what the store holds. The window state comes from the
// store's newest snapshot; the local state is kept only when it is that very snapshot (a run that
// died between its state commit and the upload left a local state the store never saw: it is
// dropped, and the batch, whose plan is on the store, is run again from the snapshot before it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/object_store.h"

namespace lakestream {

// True when a checkpoint record read from a store is not JSON: an upload a kill cut short, on a
// store that keeps what arrived of it (s3rver does). Every record is written before the work that
// depends on it, so such a record is dropped and written again.
bool is_cut_short_record(const std::string& data);

class CheckpointMirror {
 public:
  // The checkpoint under `store`'s root, mirrored in the folder `local_dir`.
  CheckpointMirror(std::unique_ptr<storage::ObjectStore> store, std::string local_dir);

  // Replaces the working copy's records (metadata, planned batches, idle mark, window state) by
  // the store's. Throws Error when the store cannot be read.
  void pull();

  // Writes the working copy's file `name` (relative to the checkpoint) to the store once. True
  // when it is there now; throws Error, naming the stream's store and what to do, when the store
  // holds a different object under that name (another runner planned it).
  void push_once(const std::string& name);
  // Writes the working copy's file `name` to the store, replacing it.
  void push(const std::string& name);
  // Removes `name` from the store.
  void remove(const std::string& name);
  // Removes every window state snapshot (a changed definition that nothing was committed under).
  void remove_state_snapshots();

  // Uploads the local window state (which the caller has checkpointed: no WAL) as the snapshot
  // of batch `batch`, then removes older snapshots.
  void push_state_snapshot(int64_t batch);
  // The newest snapshot on the store.
  std::optional<int64_t> newest_state_snapshot();

  std::string describe() const { return store_->describe(); }

  // A snapshot's key, its batch and the checksum its name gives (empty in an earlier release's
  // names, "state/<N>.duckdb", which are taken unverified).
  struct SnapshotName {
    std::string key;
    int64_t batch = 0;
    std::string checksum;
  };

 private:
  void pull_state();
  // The snapshots on the store, the newest batch first.
  std::vector<SnapshotName> state_snapshots();

  std::unique_ptr<storage::ObjectStore> store_;
  std::string local_dir_;
};

}  // namespace lakestream
