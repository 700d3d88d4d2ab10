// A continuous run's compaction, on a thread of its own: the stages hand it the tables that are
// due (engine/auto_compaction.h) and go on with their next batch, so that merging a tier of
// files, seconds for tens of megabytes, never holds up bronze or silver (a latest stream hands
// it only its large groups: engine/runner.cc says why). It races the streams for
// the table's log as a manual `optimize` does, and safely: its commit only removes the files it
// merged, and is planned again when a stream's MERGE removed one of them meanwhile; a stream's
// MERGE that finds a merged file gone plans itself again on the newer version.
#pragma once

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

#include "pipeline/pipeline.h"
#include "table/compaction.h"

namespace lakestream {

class BackgroundCompaction {
 public:
  // Starts the thread. `out` (null: say nothing) must be safe to write from it, and outlive it.
  BackgroundCompaction(const Pipeline& pipeline, std::ostream* out);
  // Lets the merge in hand finish, then stops; what was still asked for waits for the next run.
  ~BackgroundCompaction();
  BackgroundCompaction(const BackgroundCompaction&) = delete;
  BackgroundCompaction& operator=(const BackgroundCompaction&) = delete;

  // Asks for a look at `table`'s due groups `taken`; once, however often it is asked before the
  // look (for all of them when asked for all once).
  void request(const std::string& table, delta::GroupsTaken taken = delta::GroupsTaken::All);

 private:
  void run();

  const Pipeline& pipeline_;
  std::ostream* out_;
  std::mutex mu_;
  std::condition_variable asked_;
  std::deque<std::string> queue_;
  std::map<std::string, delta::GroupsTaken> queued_;  // what each table in the queue is asked for
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace lakestream
