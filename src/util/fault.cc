#include "util/fault.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace lakestream {

namespace {

struct FaultSetting {
  std::string point;
  long hits_to_die = 0;  // 0: no fault configured
};

FaultSetting& setting() {
  // Read once per process: the environment does not change under a run.
  static FaultSetting s = [] {
    FaultSetting f;
    const char* env = std::getenv("LAKESTREAM_FAULT");
    if (!env || !*env) return f;
    std::string text = env;
    auto colon = text.find(':');
    f.point = text.substr(0, colon);
    f.hits_to_die = colon == std::string::npos ? 1 : std::atol(text.c_str() + colon + 1);
    if (f.hits_to_die < 1) f.hits_to_die = 1;
    return f;
  }();
  return s;
}

struct PauseSetting {
  std::string point;
  long ms = 0;  // 0: no pause configured
};

const PauseSetting& pause_setting() {
  static PauseSetting p = [] {
    PauseSetting s;
    const char* env = std::getenv("LAKESTREAM_PAUSE");
    if (!env || !*env) return s;
    std::string text = env;
    auto colon = text.find(':');
    if (colon == std::string::npos) return s;
    s.point = text.substr(0, colon);
    s.ms = std::atol(text.c_str() + colon + 1);
    return s;
  }();
  return p;
}

std::atomic<long> fault_hits{0};  // two stages of continuous mode pass points at once

}  // namespace

bool fault_is_next(std::string_view point) {
  const FaultSetting& f = setting();
  return f.hits_to_die != 0 && point == f.point && fault_hits.load() + 1 >= f.hits_to_die;
}

void fault_point(std::string_view point) {
  const PauseSetting& p = pause_setting();
  if (p.ms > 0 && point == p.point) std::this_thread::sleep_for(std::chrono::milliseconds(p.ms));
  FaultSetting& f = setting();
  if (f.hits_to_die == 0 || point != f.point) return;
  if (++fault_hits >= f.hits_to_die) ::kill(::getpid(), SIGKILL);
}

}  // namespace lakestream
