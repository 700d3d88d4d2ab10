// A stream's plan log: `batches/<N>.json` in its checkpoint, each the input planned for batch N
// and written before batch N reads anything, so that a rerun after a crash replays exactly that
// input (planned_batch.h has the record). Only the newest plans matter; older ones are pruned.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "checkpoint/planned_batch.h"

namespace lakestream {

class CheckpointMirror;

class PlanLog {
 public:
  // The plans in the checkpoint folder `dir`, copied to `mirror`'s store when there is one.
  PlanLog(std::string dir, CheckpointMirror* mirror) : dir_(std::move(dir)), mirror_(mirror) {}

  // The newest batch planned, if any.
  std::optional<PlannedBatch> last_planned() const;
  // The planned batch `id`, if it is still kept.
  std::optional<PlannedBatch> planned(int64_t id) const;
  // Records the batch's input durably before the batch reads it.
  void plan(const PlannedBatch& batch);
  // Drops the plans of batches older than `keep_from` (they are committed; only the newest matter).
  void forget_before(int64_t keep_from);
  // Drops every plan (a changed definition that nothing was committed under).
  void forget_all();
  bool empty() const;

 private:
  std::string dir_;
  CheckpointMirror* mirror_;
};

// Read without the lock (status, vacuum, metrics): the planned batch `id` of the checkpoint
// folder `dir`, nullopt when it is not kept; and the id of its newest plan.
std::optional<PlannedBatch> read_planned_batch(const std::string& dir, int64_t id);
std::optional<int64_t> newest_planned_id(const std::string& dir);

}  // namespace lakestream
