#include "engine/background_log_cleanup.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <exception>

#include "engine/lake_vacuum.h"
#include "util/fault.h"
#include "util/log_time.h"
#include "util/plural.h"

namespace lakestream {

BackgroundLogCleanup::BackgroundLogCleanup(const Pipeline& pipeline, std::vector<std::string> tables,
                                           std::chrono::seconds every, std::ostream& out, std::ostream& err)
    : pipeline_(pipeline), tables_(std::move(tables)), every_(every), out_(out), err_(err) {
  thread_ = std::thread([this] { run(); });
}

BackgroundLogCleanup::~BackgroundLogCleanup() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  stop_asked_.notify_all();
  thread_.join();
}

void BackgroundLogCleanup::run() {
  // Behind the streams' batches for the CPU, as the checkpoints' thread is; named for top -H.
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 10);
  pthread_setname_np(pthread_self(), "ls:log-cleanup");
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    clean_every_table();
    lock.lock();
    stop_asked_.wait_for(lock, every_, [&] { return stopping_; });
  }
}

void BackgroundLogCleanup::clean_every_table() {
  for (const auto& table : tables_) {
    fault_point("log_cleanup");
    try {
      int64_t deleted = clean_expired_log(pipeline_, table);
      if (deleted > 0)
        out_ << log_time_now() << " " << table << ": deleted " << counted(deleted, "log file", "log files")
             << " past the table's log retention\n" << std::flush;
    } catch (const std::exception& e) {  // any: an exception let out of a thread ends the process
      err_ << log_time_now() << " lakestream: cleaning the log of " << table << " failed: " << e.what()
           << "; the next cleanup tries again\n" << std::flush;
    }
  }
}

}  // namespace lakestream
