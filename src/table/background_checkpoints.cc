#include "table/background_checkpoints.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <exception>

#include "table/delta_table.h"

namespace lakestream::delta {

namespace {

// The one alive, if any: set and cleared under `installed_mu`, so that a commit never hands a
// checkpoint to one being destroyed.
std::mutex installed_mu;
BackgroundCheckpoints* installed = nullptr;

}  // namespace

BackgroundCheckpoints::BackgroundCheckpoints() {
  thread_ = std::thread([this] { run(); });
  std::lock_guard lock(installed_mu);
  installed = this;
}

BackgroundCheckpoints::~BackgroundCheckpoints() { finish(); }

void BackgroundCheckpoints::finish() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(installed_mu);
    if (installed == this) installed = nullptr;
  }
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    held_ = false;
  }
  asked_.notify_all();
  thread_.join();
}

bool BackgroundCheckpoints::take(const Table& table, int64_t version) {
  std::lock_guard lock(installed_mu);
  if (!installed) return false;
  {
    std::lock_guard queue_lock(installed->mu_);
    Asked& asked = installed->asked_for_[table.path()];
    if (version > asked.version) asked = {table, version};
    int64_t& taken = installed->taken_[table.path()];
    if (version > taken) taken = version;
  }
  installed->asked_.notify_one();
  return true;
}

std::optional<int64_t> BackgroundCheckpoints::newest_taken(const Table& table) {
  std::lock_guard lock(installed_mu);
  if (!installed) return std::nullopt;
  std::lock_guard queue_lock(installed->mu_);
  auto it = installed->taken_.find(table.path());
  if (it == installed->taken_.end()) return std::nullopt;
  return it->second;
}

void BackgroundCheckpoints::hold(bool held) {
  {
    std::lock_guard lock(mu_);
    held_ = held;
  }
  asked_.notify_all();
}

int64_t BackgroundCheckpoints::written() const {
  std::lock_guard lock(mu_);
  return written_;
}

void BackgroundCheckpoints::run() {
  // Behind the streams' batches for the CPU, as the downstream stages are behind ingest; named
  // for top -H and perf.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  pthread_setname_np(pthread_self(), "ls:checkpoints");
  std::unique_lock lock(mu_);
  while (true) {
    asked_.wait(lock, [&] { return !held_ && (stopping_ || !asked_for_.empty()); });
    if (asked_for_.empty()) return;  // stopping, and everything asked for is written
    auto next = asked_for_.begin();
    const Table table = next->second.table;
    const int64_t version = next->second.version;
    asked_for_.erase(next);
    lock.unlock();
    bool wrote = false;
    try {
      write_checkpoint(table, version);
      wrote = true;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "warning: %s (the commit is in; the next checkpoint will include it)\n", e.what());
    }
    // A checkpoint's replay and action lines are a service's largest passing allocations (tens of
    // MB with a week of tombstones). The binary's allocator (jemalloc, linked in) gives freed
    // pages back to the system once unused for its decay time (10 s), so they are not kept as
    // glibc's arenas kept them (three checkpoints of the hour soak's bronze, 43,000 tombstones,
    // left 87 MiB resident there unless trimmed after each).
    lock.lock();
    if (wrote) written_++;
  }
}

}  // namespace lakestream::delta
