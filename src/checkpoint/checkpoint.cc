#include "checkpoint/checkpoint.h"

#include <algorithm>

#include "checkpoint/window_state_store.h"
#include "storage/object_store.h"
#include "table/commit_record.h"
#include "table/delta_table.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

namespace {

// A checkpoint that is gone while its table holds the stream's commits must not be made again
// from nothing: the stream would read its source again from the start into the same table.
void refuse_lost_checkpoint(const Pipeline& pipeline, const Stream& stream, const std::string& path) {
  std::string table = pipeline.table_path(stream.table);
  int64_t newest = delta::latest_version(table);
  if (newest < 0) return;
  for (const auto& commit : delta::read_commits(table, delta::oldest_commit(table), newest)) {
    auto record = commit_record_of(commit.commit_info);
    if (record && record->stream == stream.name)
      throw Error("the checkpoint of stream " + stream.name + " is missing (" + path + "), but table " + stream.table +
                  " holds its batches (version " + std::to_string(commit.version) +
                  " and later): starting from nothing would write them again. Restore the checkpoint folder from a "
                  "backup; or start over on purpose: delete the table " + table + " too (or write to a new table), "
                  "then run to load everything again.");
  }
}

std::unique_ptr<CheckpointMirror> mirror_of(const Pipeline& pipeline, const Stream& stream, const std::string& path) {
  if (pipeline.checkpoints_url.empty()) return nullptr;
  return std::make_unique<CheckpointMirror>(storage::open_store(pipeline.checkpoint_url(stream.name), pipeline.storage),
                                            path);
}

}  // namespace

Checkpoint::Checkpoint(const Pipeline& pipeline, const Stream& stream)
    : path_(pipeline.checkpoint_path(stream.name)),
      mirror_(mirror_of(pipeline, stream, path_)),
      plans_(path_, mirror_.get()),
      idle_(path_, mirror_.get()) {
  CpuScope cpu_scope("checkpoint.open");
  if (mirror_) {
    // The store is the truth: the working copy becomes what it holds, under this machine's lock.
    make_dirs(path_ + "/batches", 0700);
    lock_.emplace(path_, stream.name);
    mirror_->pull();
  }
  if (!path_exists(path_ + "/metadata.json")) {
    if (!plans_.empty())
      throw Error("the checkpoint of stream " + stream.name + " is damaged: " + path_ +
                  "/metadata.json is missing but batches are planned. Restore it from a backup, or start the stream "
                  "over with a new checkpoint and a new table.");
    refuse_lost_checkpoint(pipeline, stream, path_);
  }
  make_dirs(path_ + "/batches", 0700);
  if (!lock_) lock_.emplace(path_, stream.name);
  metadata_.emplace(pipeline, stream, path_, mirror_.get());
}

void Checkpoint::refresh_working_copy(const Pipeline& pipeline, const Stream& stream) {
  if (pipeline.checkpoints_url.empty()) return;
  std::string path = pipeline.checkpoint_path(stream.name);
  make_dirs(path + "/batches", 0700);
  StreamLock lock = StreamLock::try_take(path);
  if (!lock.held()) return;
  mirror_of(pipeline, stream, path)->pull();
}

std::optional<PlannedBatch> Checkpoint::last_planned_for(int64_t committed, const std::string& stream) const {
  std::optional<PlannedBatch> last = last_planned();
  if (last && committed > last->id)
    throw Error("the checkpoint of stream " + stream + " at " + path_ + " is behind its table: the table holds batch " +
                std::to_string(committed) + " but the checkpoint knows only batches up to " + std::to_string(last->id) +
                ". The checkpoint was replaced or restored from an old copy; restore the right one, or start over "
                "with a new checkpoint and a new table.");
  return last;
}

int64_t Checkpoint::committed_batch(std::initializer_list<delta::Table> tables) const {
  int64_t newest = -1;
  for (const auto& table : tables) newest = std::max(newest, delta::txn_version(table, id()));
  return newest;
}

void Checkpoint::check_definition(bool has_committed_work) {
  if (!metadata_->definition_changed()) return;
  if (has_committed_work) throw Error(metadata_->refusal());
  plans_.forget_all();
  WindowStateStore::remove(path_);
  if (mirror_) mirror_->remove_state_snapshots();
  metadata_->accept_new_definition();
}

void Checkpoint::publish_state(int64_t batch) {
  if (mirror_) mirror_->push_state_snapshot(batch);
}

std::optional<StreamPosition> read_stream_position(const Pipeline& pipeline, const Stream& stream) {
  std::string dir = pipeline.checkpoint_path(stream.name);
  std::string meta_path = dir + "/metadata.json";
  if (!path_exists(meta_path)) return std::nullopt;
  StreamPosition position;
  std::optional<int64_t> newest = newest_planned_id(dir);
  try {
    position.id = nlohmann::json::parse(read_file(meta_path)).at("id").get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    throw Error("the checkpoint of stream " + stream.name + " is damaged: " + meta_path + " is not valid (" + e.what() +
                "). Restore it, or start the stream over with a new checkpoint.");
  }
  if (newest) position.newest = read_planned_batch(dir, *newest);
  return position;
}

}  // namespace lakestream
