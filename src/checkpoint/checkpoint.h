// A stream's checkpoint: the one place that remembers where a stream is. Only this module
// writes it. With `[lake] checkpoints` on an object store, the store holds it and the folder
// below is the run's working copy (checkpoint_mirror.h). Layout of <checkpoints>/<stream>/
// (folders 0700, files 0600), each part with its own owner:
//   metadata.json      the stream's id and definition (stream_metadata.h)
//   lock               flock()ed while a run owns the stream (stream_lock.h)
//   batches/<N>.json   the input planned for batch N, written before batch N reads anything
//                      (plan_log.h, planned_batch.h)
//   idle.json          the idle mark (idle_mark.h)
//   state.duckdb       (window streams) their state, progress and outbox: see window_state_store.h
//   progress.jsonl     the progress log, for operators: see progress_log.h
// Checkpoint opens them together, in the order that keeps them consistent: the store's copy
// pulled, a lost checkpoint refused, the lock taken, the metadata read or made.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>

#include "checkpoint/checkpoint_mirror.h"
#include "checkpoint/idle_mark.h"
#include "checkpoint/plan_log.h"
#include "checkpoint/planned_batch.h"
#include "checkpoint/stream_lock.h"
#include "checkpoint/stream_metadata.h"
#include "pipeline/pipeline.h"
#include "table/table.h"

namespace lakestream {

class Checkpoint {
 public:
  // Opens the stream's checkpoint, creating it on first use, and locks it for this process.
  // Throws StreamBusy when another run holds it ("stream X is already running: ..."). A
  // checkpoint on an object store is first copied to the working copy (the lock is the working
  // copy's: it keeps out runs on this machine; runs on another machine are kept out by the Delta
  // txn fence, see sinks/table_sink.h).
  Checkpoint(const Pipeline& pipeline, const Stream& stream);

  // For the commands that read a checkpoint without running its stream (check, status): with
  // the checkpoints on an object store, the working copy is made what the store holds (on a
  // machine that never ran the stream, it has nothing), under the lock. When a run on this
  // machine holds the lock, its copy is the current one and is read as it is.
  static void refresh_working_copy(const Pipeline& pipeline, const Stream& stream);
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  // The stream's id: the appId of its Delta txn actions.
  const std::string& id() const { return metadata_->id(); }
  const std::string& path() const { return path_; }
  // True when this open created the checkpoint (the stream never ran before).
  bool is_new() const { return metadata_->is_new(); }

  // What this stream has committed: the newest batch id its txn carries in any of `tables`
  // (the tables it writes), -1 when none. The one answer every kind of stream asks.
  int64_t committed_batch(std::initializer_list<delta::Table> tables) const;

  // True when the stream's definition in the pipeline file differs from the checkpoint's.
  bool definition_changed() const { return metadata_->definition_changed(); }
  // Refuses the run (Error saying what changed and how to start over) when the definition
  // changed and the checkpoint holds committed work that only fits the old one. When nothing was
  // committed yet (say the first run failed on a typo in a filter), the new definition replaces
  // the old one and the uncommitted plans and state are dropped: nothing depends on them.
  void check_definition(bool has_committed_work);

  // The plan log (plan_log.h).
  std::optional<PlannedBatch> last_planned() const { return plans_.last_planned(); }
  // The same for an ingest stream that has committed batch `committed`: throws Error (naming
  // `stream`) when the table holds a batch the checkpoint never planned, a checkpoint replaced or
  // restored from an old copy.
  std::optional<PlannedBatch> last_planned_for(int64_t committed, const std::string& stream) const;
  std::optional<PlannedBatch> planned(int64_t id) const { return plans_.planned(id); }
  void plan(const PlannedBatch& batch) { plans_.plan(batch); }
  void forget_before(int64_t keep_from) { plans_.forget_before(keep_from); }

  // The idle mark (idle_mark.h).
  std::optional<IdleMark> idle_mark() const { return idle_.get(); }
  void set_idle_mark(const IdleMark& mark) { idle_.set(mark); }
  void clear_idle_mark() { idle_.clear(); }

  // True when the checkpoint lives on an object store.
  bool on_object_store() const { return mirror_ != nullptr; }
  // Uploads the window state as the snapshot of batch `batch` (on an object store only).
  void publish_state(int64_t batch);

 private:
  std::string path_;
  std::unique_ptr<CheckpointMirror> mirror_;  // set when the checkpoint is on an object store
  PlanLog plans_;
  IdleMarkFile idle_;
  std::optional<StreamLock> lock_;
  std::optional<StreamMetadata> metadata_;
};

// Where a stream is, read without locking its checkpoint (vacuum asks while the stream may be
// running; the answer only moves forward): its id and its newest planned batch. nullopt for a
// stream that never ran.
struct StreamPosition {
  std::string id;
  std::optional<PlannedBatch> newest;
};
std::optional<StreamPosition> read_stream_position(const Pipeline& pipeline, const Stream& stream);

}  // namespace lakestream
