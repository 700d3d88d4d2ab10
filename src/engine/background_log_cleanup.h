// A service's Delta logs kept bounded without a manual vacuum: at start and then every interval
// (hourly by default), each table the service writes loses the commits and checkpoints its log
// retention lets go (engine/lake_vacuum.h). On a thread of its own, behind the batches: the
// cleanup lists the whole `_delta_log` folder, which on an object store grows with the log (the
// 15-minute soak's bronze took 3,300 commits), and when it ran before each stage's first batch a
// restart on Azurite waited for it, from 0.2 s after the first kill to 5.3 s after the fifth.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/pipeline.h"

namespace lakestream {

class BackgroundLogCleanup {
 public:
  // Starts cleaning `tables` of `pipeline` at once, then every `every`; says what it deleted on
  // `out` and what failed on `err` (each a stream only this thread writes, or a line sink).
  BackgroundLogCleanup(const Pipeline& pipeline, std::vector<std::string> tables, std::chrono::seconds every,
                       std::ostream& out, std::ostream& err);
  // Lets a cleanup in hand finish (deletions go oldest first, so a stop midway leaves a log that
  // still starts at a whole version), then stops.
  ~BackgroundLogCleanup();
  BackgroundLogCleanup(const BackgroundLogCleanup&) = delete;
  BackgroundLogCleanup& operator=(const BackgroundLogCleanup&) = delete;

 private:
  void run();
  void clean_every_table();

  const Pipeline& pipeline_;
  const std::vector<std::string> tables_;
  const std::chrono::seconds every_;
  std::ostream& out_;
  std::ostream& err_;
  std::mutex mu_;
  std::condition_variable stop_asked_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lakestream
