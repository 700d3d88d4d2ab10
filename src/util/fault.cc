#include "util/fault.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace lakestream {

namespace {

struct FaultSetting {
  std::string point;
  long hits_to_die = 0;  // 0: no fault configured
  long hits = 0;
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

}  // namespace

void fault_point(std::string_view point) {
  FaultSetting& f = setting();
  if (f.hits_to_die == 0 || point != f.point) return;
  if (++f.hits >= f.hits_to_die) ::kill(::getpid(), SIGKILL);
}

}  // namespace lakestream
