#include "util/stop.h"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace lakestream {

namespace {

std::atomic<bool> stop_flag{false};

void on_stop_signal(int sig) {
  if (stop_flag.exchange(true)) {
    // Asked twice: the user wants out now.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
}

}  // namespace

void install_stop_signals() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking sleep or poll wakes up
  ::sigaction(SIGTERM, &action, nullptr);
  ::sigaction(SIGINT, &action, nullptr);
}

bool stop_requested() { return stop_flag.load(); }

bool sleep_unless_stopped(double seconds) {
  auto until = std::chrono::steady_clock::now() +
               std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  while (std::chrono::steady_clock::now() < until) {
    if (stop_requested()) return true;
    // In slices, to see a stop soon; the last one only as long as is left, so that a paced batch
    // starts when it is due rather than up to a slice later.
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(50), until - std::chrono::steady_clock::now()));
  }
  return stop_requested();
}

}  // namespace lakestream
