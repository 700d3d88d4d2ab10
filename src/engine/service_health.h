// What the health endpoints of a running service say (`run --metrics-port N`, beside /metrics):
// /healthz, that the process is live and answering; /readyz, that every stream has run within
// its expected time and none is failing, for an orchestrator's readiness probe and for alerts.
// Fed by the run as it goes: each batch or failure of a stream, and in continuous mode each run
// of a stream that ended, found it something or not (an idle stream runs, but writes no batch).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace lakestream {

struct Readiness {
  bool ready = false;
  std::string text;  // a line per stream: "ok read_orders: last run ended 0.4 s ago", ...
};

class ServiceHealth {
 public:
  using Clock = std::chrono::steady_clock;

  // `streams` are the ones the service runs; each must have run within `expected` (a few
  // intervals: see expected_run_gap) to be ready.
  ServiceHealth(std::vector<std::string> streams, Clock::duration expected);

  // A run of these streams started; it ended well (nullopt) or with `failure` (thread-safe).
  void run_started(const std::vector<std::string>& streams, Clock::time_point at = Clock::now());
  void run_ended(const std::vector<std::string>& streams, const std::optional<std::string>& failure,
                 Clock::time_point at = Clock::now());

  // Ready when every stream's last run ended well and recently: within `expected`, or it is in a
  // run that started within `expected` (a long batch is not a hang) (thread-safe).
  Readiness readiness(Clock::time_point now = Clock::now()) const;

 private:
  struct StreamHealth {
    std::optional<Clock::time_point> started, ended;
    bool running = false;
    std::optional<std::string> failure;
  };
  std::vector<std::string> order_;
  Clock::duration expected_;
  mutable std::mutex mu_;
  std::map<std::string, StreamHealth> streams_;
};

// How long a stream of a service run every `interval` may go without ending a run before it is
// not ready: three intervals, and never under a minute (an idle run waits up to a second for
// records; a busy machine delays a run by seconds).
ServiceHealth::Clock::duration expected_run_gap(std::chrono::microseconds interval);

}  // namespace lakestream
