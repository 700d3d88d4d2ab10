// A service's checkpoints, on a thread of their own. A checkpoint carries every tombstone of the
// table's retention (a week of the files its compactions replaced): at 1,000 events/s the hour
// soak's bronze held 43,000 of them, and writing its checkpoint took 0.7 s (reading the last one
// and the commits since, then the Parquet) inside the batch whose commit made it due, every 100
// commits: bronze's p99 grew from 160 to 655 ms in the hour. While one of these is alive, a commit
// that makes a checkpoint due hands it here and its batch goes on; the commit is already in, so a
// checkpoint late or lost to a crash only means readers replay a few more commits, as a checkpoint
// that failed always did.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "table/table.h"

namespace lakestream::delta {

class BackgroundCheckpoints {
 public:
  // Starts the thread and takes the checkpoints of every commit in this process from now on.
  BackgroundCheckpoints();
  // Writes what is still asked for, then stops; commits write their own checkpoints again.
  ~BackgroundCheckpoints();
  void finish();
  BackgroundCheckpoints(const BackgroundCheckpoints&) = delete;
  BackgroundCheckpoints& operator=(const BackgroundCheckpoints&) = delete;

  // Hands the checkpoint of `version` of `table` to the running one: false when none runs (the
  // caller writes it). A table asked for again before its turn gets only the newest version.
  static bool take(const Table& table, int64_t version);

  // The newest version of `table` handed to the running one (asked for, being written or
  // written), if any: the cadence counts from it, not from a `_last_checkpoint` that its thread
  // has not replaced yet (otherwise a lagging thread is asked again every 10 commits, and the
  // hour soak's bronze got a checkpoint 20 commits after each, twice the checkpoints).
  static std::optional<int64_t> newest_taken(const Table& table);

  // For the tests: the checkpoints it wrote, and a thread held back as a busy service's lags.
  int64_t written() const;
  void hold(bool held);

 private:
  void run();

  mutable std::mutex mu_;
  std::condition_variable asked_;
  struct Asked {
    Table table;  // as the commit reached it: the checkpoint goes to the same store the same way
    int64_t version = -1;
  };
  std::map<std::string, Asked> asked_for_;  // table path -> the version to checkpoint
  std::map<std::string, int64_t> taken_;    // table path -> the newest version ever handed over
  bool held_ = false;
  bool stopping_ = false;
  int64_t written_ = 0;
  std::thread thread_;
};

}  // namespace lakestream::delta
