#include "util/cpu_profile.h"

#include <pthread.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <utility>

namespace lakestream {

namespace {

int64_t thread_cpu_ns() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

int64_t CpuScope::this_thread_ns() { return thread_cpu_ns(); }

namespace {

struct Totals {
  std::mutex mu;
  std::map<std::pair<std::string, std::string>, std::pair<int64_t, int64_t>> by_label;  // ns, count
  ~Totals() {
    const char* file = std::getenv("LAKESTREAM_CPU_PROFILE");
    if (!file || !*file) return;
    FILE* out = std::fopen(file, "a");
    if (!out) return;
    for (const auto& [key, total] : by_label)
      std::fprintf(out, "%s\t%s\t%.3f\t%lld\n", key.first.c_str(), key.second.c_str(), total.first / 1e6,
                   static_cast<long long>(total.second));
    std::fclose(out);
  }
};

Totals& totals() {
  static Totals t;
  return t;
}

}  // namespace

bool CpuScope::enabled() {
  static const bool on = [] {
    const char* file = std::getenv("LAKESTREAM_CPU_PROFILE");
    if (file && *file) totals();  // made before any scope ends, so written after the last one
    return file && *file;
  }();
  return on;
}

CpuScope::CpuScope(const char* label) {
  if (!enabled()) return;
  label_ = label;
  started_ns_ = thread_cpu_ns();
}

CpuScope::CpuScope(const std::string& label) {
  if (!enabled()) return;
  label_ = label;
  started_ns_ = thread_cpu_ns();
}

CpuScope::~CpuScope() {
  if (started_ns_ < 0) return;
  int64_t spent = thread_cpu_ns() - started_ns_;
  char name[32] = "?";
  pthread_getname_np(pthread_self(), name, sizeof name);
  Totals& t = totals();
  std::lock_guard<std::mutex> lock(t.mu);
  auto& total = t.by_label[{name, label_}];
  total.first += spent;
  total.second++;
}

}  // namespace lakestream
