// A stream's idle mark (`idle.json`): written when a run leaves the stream with nothing pending
// (every planned batch committed, no output waiting), so that the next run with nothing new can
// stop before it opens the state. It holds what that run had read; it is removed before any work
// starts, so a run that dies mid-batch never leaves one behind. A service (continuous mode, a
// local checkpoint) keeps its window stream's mark in memory between cycles instead, and writes
// none: at a batch a cycle, the file's write, syncs and removal cost more than the mark saved.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace lakestream {

class CheckpointMirror;

// The newest planned batch, all committed, and the last source version it read.
struct IdleMark {
  int64_t batch = -1;
  int64_t to = -1;
};

class IdleMarkFile {
 public:
  // The mark of the checkpoint folder `dir`, copied to `mirror`'s store when there is one.
  IdleMarkFile(std::string dir, CheckpointMirror* mirror) : dir_(std::move(dir)), mirror_(mirror) {}

  // nullopt when there is none, or it cannot be read (the work is then done the long way).
  std::optional<IdleMark> get() const;
  void set(const IdleMark& mark);
  void clear();

 private:
  std::string dir_;
  CheckpointMirror* mirror_;
};

}  // namespace lakestream
