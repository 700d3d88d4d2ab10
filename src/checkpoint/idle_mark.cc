#include "checkpoint/idle_mark.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "checkpoint/checkpoint_mirror.h"
#include "util/cpu_profile.h"
#include "util/files.h"

namespace lakestream {

std::optional<IdleMark> IdleMarkFile::get() const {
  std::string file = dir_ + "/idle.json";
  if (!path_exists(file)) return std::nullopt;
  auto mark = nlohmann::json::parse(read_file(file), nullptr, false);
  if (mark.is_discarded() || !mark.is_object() || !mark["batch"].is_number_integer() || !mark["to"].is_number_integer())
    return std::nullopt;
  return IdleMark{mark["batch"].get<int64_t>(), mark["to"].get<int64_t>()};
}

void IdleMarkFile::set(const IdleMark& mark) {
  CpuScope cpu_scope("checkpoint.idle_mark");
  nlohmann::json j = {{"batch", mark.batch}, {"to", mark.to}};
  write_file_atomic(dir_ + "/idle.json", j.dump() + "\n", 0600);
  if (mirror_) mirror_->push("idle.json");
}

void IdleMarkFile::clear() {
  std::string file = dir_ + "/idle.json";
  if (::unlink(file.c_str()) != 0) return;
  sync_dir(dir_);
  // Removed before any work starts, on the store too: a run elsewhere must not skip that work.
  if (mirror_) mirror_->remove("idle.json");
}

}  // namespace lakestream
