#include "engine/background_compaction.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include "engine/auto_compaction.h"
#include "sql/duckdb.h"

namespace lakestream {

BackgroundCompaction::BackgroundCompaction(const Pipeline& pipeline, std::ostream* out)
    : pipeline_(pipeline), out_(out), thread_([this] { run(); }) {}

BackgroundCompaction::~BackgroundCompaction() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  asked_.notify_all();
  thread_.join();
}

void BackgroundCompaction::request(const std::string& table, delta::GroupsTaken taken) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, added] = queued_.emplace(table, taken);
    if (!added) {
      if (it->second != taken) it->second = delta::GroupsTaken::All;
      return;
    }
    queue_.push_back(table);
  }
  asked_.notify_one();
}

void BackgroundCompaction::run() {
  // Below the stages (a downstream stage is at 5): a merge takes the CPU a batch leaves over. The
  // threads DuckDB starts for it inherit both.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  pthread_setname_np(pthread_self(), "ls:compaction");
  sql::Database db;  // its own: a stage's connection is busy with the stage's batch
  sql::Connection con(db);
  for (;;) {
    std::string table;
    delta::GroupsTaken taken;
    {
      std::unique_lock<std::mutex> lock(mu_);
      asked_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      table = queue_.front();
      queue_.pop_front();
      taken = queued_.at(table);
      queued_.erase(table);
    }
    compact_table(pipeline_, table, con, true, out_, taken);
  }
}

}  // namespace lakestream
