#include "checkpoint/checkpoint.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "checkpoint/definition_change.h"
#include "checkpoint/window_state_store.h"
#include "storage/object_store.h"
#include "table/commit_record.h"
#include "table/delta_table.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {

namespace {

std::string batch_file(const std::string& dir, int64_t id) { return dir + "/batches/" + std::to_string(id) + ".json"; }

std::optional<int64_t> batch_id_of(const std::string& name) {
  if (name.size() < 6 || name.substr(name.size() - 5) != ".json") return std::nullopt;
  std::string digits = name.substr(0, name.size() - 5);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(digits);
}

}  // namespace

nlohmann::json stream_definition(const Pipeline& pipeline, const Stream& s) {
  nlohmann::json d = {{"name", s.name}, {"table", s.table}};
  switch (s.kind) {
    case StreamKind::Ingest:
      d["kind"] = "ingest";
      d["source"] = s.source;
      if (const Source* source = pipeline.find_source(s.source)) {
        nlohmann::json schema = nlohmann::json::object();
        for (const auto& f : source->schema.fields) schema[f.name] = f.delta_type();
        d["schema"] = schema;
      }
      break;
    case StreamKind::Latest:
      d["kind"] = "latest";
      d["from"] = s.from;
      d["key"] = s.key;
      d["order_by"] = s.order_by;
      // Deletes change what the table holds: rows of delete events written before stay.
      d["deletes"] = s.deletes;
      break;
    case StreamKind::Window: {
      d["kind"] = "window";
      d["from"] = s.from;
      d["filter"] = s.filter;
      d["event_time"] = s.event_time;
      d["watermark_delay_us"] = s.watermark_delay_us;
      d["dedup"] = s.dedup;
      d["window_us"] = s.window_us;
      d["group_by"] = s.group_by;
      nlohmann::json aggs = nlohmann::json::array();
      for (const auto& a : s.aggregates) aggs.push_back({{"name", a.name}, {"function", a.function}, {"argument", a.argument}});
      d["aggregates"] = aggs;
      d["output"] = s.output == OutputMode::Append ? "append" : "update";
      break;
    }
  }
  return d;
}

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

// The checkpoint's lock file opened and flocked: its descriptor, or -1 when another process holds
// the lock. Error when the file cannot be opened.
int try_lock(const std::string& lock_path) {
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw Error("cannot open " + lock_path + ": " + std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
  ::close(fd);
  return -1;
}

}  // namespace

Checkpoint::Checkpoint(const Pipeline& pipeline, const Stream& stream) : path_(pipeline.checkpoint_path(stream.name)) {
  CpuScope cpu_scope("checkpoint.open");
  if (!pipeline.checkpoints_url.empty()) {
    // The store is the truth: the working copy becomes what it holds, under this machine's lock.
    mirror_ = std::make_unique<CheckpointMirror>(storage::open_store(pipeline.checkpoint_url(stream.name), pipeline.storage), path_);
    make_dirs(path_ + "/batches", 0700);
    lock(stream);
  }
  try {
    open(pipeline, stream);
  } catch (...) {
    if (lock_fd_ >= 0) ::close(lock_fd_);
    throw;
  }
}

void Checkpoint::refresh_working_copy(const Pipeline& pipeline, const Stream& stream) {
  if (pipeline.checkpoints_url.empty()) return;
  std::string path = pipeline.checkpoint_path(stream.name);
  make_dirs(path + "/batches", 0700);
  int fd = try_lock(path + "/lock");
  if (fd < 0) return;
  try {
    CheckpointMirror(storage::open_store(pipeline.checkpoint_url(stream.name), pipeline.storage), path).pull();
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
}

void Checkpoint::lock(const Stream& stream) {
  std::string lock_path = path_ + "/lock";
  lock_fd_ = try_lock(lock_path);
  if (lock_fd_ < 0) {
    std::string holder = read_file(lock_path);
    throw StreamBusy("stream " + stream.name + " is already running" +
                (holder.empty() ? std::string() : " (pid " + holder.substr(0, holder.find('\n')) + ")") +
                ": its checkpoint " + path_ + " is locked. Wait for that run to finish, or stop it.");
  }
  // Who holds the lock, for the message above (its first line); the lock itself is the flock, not
  // this text. Written over the old text, not truncated first: truncating the file (giving its
  // block back to the file system) took 2 to 5 ms a stream on a busy machine, most of an idle run.
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::pwrite(lock_fd_, pid.data(), pid.size(), 0) < 0) {
    // Only informative; the lock holds regardless.
  }
}

void Checkpoint::write_metadata(const nlohmann::json& meta, bool first) {
  write_file_atomic(path_ + "/metadata.json", meta.dump(2) + "\n", 0600);
  if (!mirror_) return;
  if (first) mirror_->push_once("metadata.json");
  else mirror_->push("metadata.json");
}

void Checkpoint::open(const Pipeline& pipeline, const Stream& stream) {
  if (mirror_) mirror_->pull();
  if (!path_exists(path_ + "/metadata.json")) {
    if (!list_dir(path_ + "/batches").empty())
      throw Error("the checkpoint of stream " + stream.name + " is damaged: " + path_ +
                  "/metadata.json is missing but batches are planned. Restore it from a backup, or start the stream "
                  "over with a new checkpoint and a new table.");
    refuse_lost_checkpoint(pipeline, stream, path_);
  }
  make_dirs(path_ + "/batches", 0700);
  if (lock_fd_ < 0) lock(stream);

  std::string meta_path = path_ + "/metadata.json";
  if (path_exists(meta_path)) {
    nlohmann::json meta;
    try {
      meta = nlohmann::json::parse(read_file(meta_path));
      id_ = meta.at("id").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      throw Error("the checkpoint of stream " + stream.name + " is damaged: " + meta_path + " is not valid (" +
                  e.what() + "). Restore it from a backup, or start the stream over with a new checkpoint.");
    }
    changes_ = definition_changes(meta.value("definition", nlohmann::json::object()), stream_definition(pipeline, stream));
    nlohmann::json definition = stream_definition(pipeline, stream);
    if (!changes_.empty()) {
      refusal_ = "stream " + stream.name + " has changed since its checkpoint " + path_ +
                 " was made, and the checkpoint's batches and state only fit the old definition:" + changes_ +
                 "\nUndo the change; or start over with the new definition: delete the checkpoint folder and the "
                 "table " + pipeline.table_path(stream.table) + " (or write to a new table), then run: the stream "
                 "reads its whole source again (a backfill).";
      new_metadata_ = meta;
      new_metadata_["definition"] = definition;
    } else if (meta.value("definition", nlohmann::json::object()) != definition) {
      // Fields were added: record them, so that dropping one later is caught like any other change.
      meta["definition"] = definition;
      write_metadata(meta, false);
    }
  } else {
    id_ = new_uuid();
    nlohmann::json meta = {{"id", id_}, {"stream", stream.name}, {"created", static_cast<int64_t>(std::time(nullptr))},
                           {"definition", stream_definition(pipeline, stream)}};
    write_metadata(meta, true);
    is_new_ = true;
  }
}

void Checkpoint::check_definition(bool has_committed_work) {
  if (changes_.empty()) return;
  if (has_committed_work) throw Error(refusal_);
  for (const auto& name : list_dir(path_ + "/batches")) {
    ::unlink((path_ + "/batches/" + name).c_str());
    if (mirror_) mirror_->remove("batches/" + name);
  }
  WindowStateStore::remove(path_);
  if (mirror_) mirror_->remove_state_snapshots();
  write_metadata(new_metadata_, false);
  changes_.clear();
}

std::optional<IdleMark> Checkpoint::idle_mark() const {
  std::string file = path_ + "/idle.json";
  if (!path_exists(file)) return std::nullopt;
  auto mark = nlohmann::json::parse(read_file(file), nullptr, false);
  // Unreadable: do the work the long way.
  if (mark.is_discarded() || !mark.is_object() || !mark["batch"].is_number_integer() || !mark["to"].is_number_integer())
    return std::nullopt;
  return IdleMark{mark["batch"].get<int64_t>(), mark["to"].get<int64_t>()};
}

void Checkpoint::set_idle_mark(const IdleMark& mark) {
  CpuScope cpu_scope("checkpoint.idle_mark");
  nlohmann::json j = {{"batch", mark.batch}, {"to", mark.to}};
  write_file_atomic(path_ + "/idle.json", j.dump() + "\n", 0600);
  if (mirror_) mirror_->push("idle.json");
}

void Checkpoint::clear_idle_mark() {
  std::string file = path_ + "/idle.json";
  if (::unlink(file.c_str()) != 0) return;
  sync_dir(path_);
  // Removed before any work starts, on the store too: a run elsewhere must not skip that work.
  if (mirror_) mirror_->remove("idle.json");
}

Checkpoint::~Checkpoint() {
  if (lock_fd_ >= 0) ::close(lock_fd_);  // closing releases the flock
}

std::optional<PlannedBatch> Checkpoint::last_planned() const {
  CpuScope cpu_scope("checkpoint.last_planned");
  std::optional<int64_t> newest;
  for (const auto& name : list_dir(path_ + "/batches")) {
    auto id = batch_id_of(name);
    if (id && (!newest || *id > *newest)) newest = id;
  }
  if (!newest) return std::nullopt;
  return planned(*newest);
}

std::optional<PlannedBatch> Checkpoint::planned(int64_t id) const { return read_planned_batch(path_, id); }

std::optional<PlannedBatch> read_planned_batch(const std::string& dir, int64_t id) {
  std::string file = batch_file(dir, id);
  if (!path_exists(file)) return std::nullopt;
  return decode_planned_batch(id, read_file(file), file);
}

std::optional<std::string> read_checkpoint_id(const Pipeline& pipeline, const Stream& stream) {
  std::string meta_path = pipeline.checkpoint_path(stream.name) + "/metadata.json";
  if (!path_exists(meta_path)) return std::nullopt;
  auto meta = nlohmann::json::parse(read_file(meta_path), nullptr, false);
  if (meta.is_discarded() || !meta.contains("id"))
    throw Error("the checkpoint of stream " + stream.name + " is damaged: " + meta_path +
                " is not valid. Restore it from a backup, or start the stream over with a new checkpoint.");
  return meta["id"].get<std::string>();
}

void Checkpoint::plan(const PlannedBatch& batch) {
  CpuScope cpu_scope("checkpoint.plan");
  write_file_atomic(batch_file(path_, batch.id), encode_planned_batch(batch), 0600);
  if (mirror_) mirror_->push_once("batches/" + std::to_string(batch.id) + ".json");
}

void Checkpoint::publish_state(int64_t batch) {
  if (mirror_) mirror_->push_state_snapshot(batch);
}

void Checkpoint::forget_before(int64_t keep_from) {
  CpuScope cpu_scope("checkpoint.forget_before");
  for (const auto& name : list_dir(path_ + "/batches")) {
    auto id = batch_id_of(name);
    if (!id || *id >= keep_from) continue;
    ::unlink((path_ + "/batches/" + name).c_str());
    if (mirror_) mirror_->remove("batches/" + name);
  }
}

std::optional<StreamPosition> read_stream_position(const Pipeline& pipeline, const Stream& stream) {
  std::string dir = pipeline.checkpoint_path(stream.name);
  std::string meta_path = dir + "/metadata.json";
  if (!path_exists(meta_path)) return std::nullopt;
  StreamPosition position;
  std::optional<int64_t> newest;
  for (const auto& name : list_dir(dir + "/batches")) {
    auto id = batch_id_of(name);
    if (id && (!newest || *id > *newest)) newest = id;
  }
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
