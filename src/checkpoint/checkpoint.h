// A stream's checkpoint: the one place that remembers where a stream is. Only this module
// writes it. With `[lake] checkpoints` on an object store, the store holds it and the folder
// below is the run's working copy (checkpoint_mirror.h). Layout of <checkpoints>/<stream>/
// (folders 0700, files 0600):
//   metadata.json      the stream's id (its Delta txn appId) and definition, written once
//   lock               flock()ed while a run owns the stream; the kernel drops it if the run dies
//   batches/<N>.json   the input planned for batch N, written before batch N reads anything, so
//                      that a rerun after a crash replays exactly that input: see planned_batch.h
//   idle.json          the idle mark (below)
//   state.duckdb       (window streams) their state, progress and outbox: see window_state_store.h
//   progress.jsonl     the progress log, for operators: see progress_log.h
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include <memory>

#include "checkpoint/checkpoint_mirror.h"
#include "checkpoint/planned_batch.h"
#include "util/error.h"
#include "pipeline/pipeline.h"

namespace lakestream {

// A window stream's idle mark: its newest planned batch, all committed, and the last source
// version it read.
struct IdleMark {
  int64_t batch = -1;
  int64_t to = -1;
};

// Another run holds the stream's checkpoint (its lock).
class StreamBusy : public Error {
 public:
  using Error::Error;
};

class Checkpoint {
 public:
  // Opens the stream's checkpoint, creating it on first use, and locks it for this process.
  // Throws Error when another run holds it ("stream X is already running: ..."). A checkpoint on
  // an object store is first copied to the working copy (the lock is the working copy's: it
  // keeps out runs on this machine; runs on another machine are kept out by the Delta txn fence,
  // see sinks/table_sink.h).
  Checkpoint(const Pipeline& pipeline, const Stream& stream);

  // For the commands that read a checkpoint without running its stream (check, status): with
  // the checkpoints on an object store, the working copy is made what the store holds (on a
  // machine that never ran the stream, it has nothing), under the lock. When a run on this
  // machine holds the lock, its copy is the current one and is read as it is.
  static void refresh_working_copy(const Pipeline& pipeline, const Stream& stream);
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  // The stream's id: the appId of its Delta txn actions. New for a new checkpoint, so that a
  // stream started over into the same table is never mistaken for the old one.
  const std::string& id() const { return id_; }
  const std::string& path() const { return path_; }
  // True when this open created the checkpoint (the stream never ran before).
  bool is_new() const { return is_new_; }

  // True when the stream's definition in the pipeline file differs from the checkpoint's.
  bool definition_changed() const { return !changes_.empty(); }
  // Refuses the run (Error saying what changed and how to start over) when the definition
  // changed and the checkpoint holds committed work that only fits the old one. When nothing was
  // committed yet (say the first run failed on a typo in a filter), the new definition replaces
  // the old one and the uncommitted plans and state are dropped: nothing depends on them.
  void check_definition(bool has_committed_work);

  // The newest batch planned, if any.
  std::optional<PlannedBatch> last_planned() const;
  // The planned batch `id`, if it is still kept.
  std::optional<PlannedBatch> planned(int64_t id) const;
  // Records the batch's input durably before the batch reads it.
  void plan(const PlannedBatch& batch);
  // Drops the plans of batches older than `keep_from` (they are committed; only the newest matter).
  void forget_before(int64_t keep_from);

  // The idle mark: written when a run leaves the stream with nothing pending (every planned
  // batch committed, no output waiting), so that the next run with nothing new can stop before
  // it opens the state. It holds what that run had read (`mark`); it is removed before any work
  // starts, so a run that dies mid-batch never leaves one behind.
  std::optional<IdleMark> idle_mark() const;
  void set_idle_mark(const IdleMark& mark);
  void clear_idle_mark();

  // True when the checkpoint lives on an object store.
  bool on_object_store() const { return mirror_ != nullptr; }
  // Uploads the window state as the snapshot of batch `batch` (on an object store only).
  void publish_state(int64_t batch);

 private:
  void lock(const Stream& stream);
  void open(const Pipeline& pipeline, const Stream& stream);
  void write_metadata(const nlohmann::json& meta, bool first);

  std::string path_;
  std::string id_;
  bool is_new_ = false;
  int lock_fd_ = -1;
  std::unique_ptr<CheckpointMirror> mirror_;  // set when the checkpoint is on an object store
  std::string changes_;               // what changed, one "\n  ..." line per change
  std::string refusal_;               // the message that refuses a changed definition
  nlohmann::json new_metadata_;       // metadata.json with the new definition

};

// Read-only views of a checkpoint, for status and metrics while a run may hold the lock.
// The stream's id (its Delta txn appId), nullopt when it never ran.
std::optional<std::string> read_checkpoint_id(const Pipeline& pipeline, const Stream& stream);
// The planned batch `id` of the checkpoint folder `dir`, nullopt when it is not kept.
std::optional<PlannedBatch> read_planned_batch(const std::string& dir, int64_t id);
// Where a stream is, read without locking its checkpoint (vacuum asks while the stream may be
// running; the answer only moves forward): its id and its newest planned batch. nullopt for a
// stream that never ran.
struct StreamPosition {
  std::string id;
  std::optional<PlannedBatch> newest;
};
std::optional<StreamPosition> read_stream_position(const Pipeline& pipeline, const Stream& stream);

// The definition of a stream as its checkpoint records it (kind, source, table, and for stateful
// streams the settings their state depends on).
nlohmann::json stream_definition(const Pipeline& pipeline, const Stream& stream);

}  // namespace lakestream
