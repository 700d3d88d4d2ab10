#include "checkpoint/plan_log.h"

#include <unistd.h>

#include "checkpoint/checkpoint_mirror.h"
#include "util/cpu_profile.h"
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

std::optional<int64_t> newest_planned_id(const std::string& dir) {
  std::optional<int64_t> newest;
  for (const auto& name : list_dir(dir + "/batches")) {
    auto id = batch_id_of(name);
    if (id && (!newest || *id > *newest)) newest = id;
  }
  return newest;
}

std::optional<PlannedBatch> read_planned_batch(const std::string& dir, int64_t id) {
  std::string file = batch_file(dir, id);
  if (!path_exists(file)) return std::nullopt;
  return decode_planned_batch(id, read_file(file), file);
}

std::optional<PlannedBatch> PlanLog::last_planned() const {
  CpuScope cpu_scope("checkpoint.last_planned");
  auto newest = newest_planned_id(dir_);
  if (!newest) return std::nullopt;
  return planned(*newest);
}

std::optional<PlannedBatch> PlanLog::planned(int64_t id) const { return read_planned_batch(dir_, id); }

void PlanLog::plan(const PlannedBatch& batch) {
  CpuScope cpu_scope("checkpoint.plan");
  write_file_atomic(batch_file(dir_, batch.id), encode_planned_batch(batch), 0600);
  if (mirror_) mirror_->push_once("batches/" + std::to_string(batch.id) + ".json");
}

void PlanLog::forget_before(int64_t keep_from) {
  CpuScope cpu_scope("checkpoint.forget_before");
  for (const auto& name : list_dir(dir_ + "/batches")) {
    auto id = batch_id_of(name);
    if (!id || *id >= keep_from) continue;
    ::unlink((dir_ + "/batches/" + name).c_str());
    if (mirror_) mirror_->remove("batches/" + name);
  }
}

void PlanLog::forget_all() {
  for (const auto& name : list_dir(dir_ + "/batches")) {
    ::unlink((dir_ + "/batches/" + name).c_str());
    if (mirror_) mirror_->remove("batches/" + name);
  }
}

bool PlanLog::empty() const { return list_dir(dir_ + "/batches").empty(); }

}  // namespace lakestream
