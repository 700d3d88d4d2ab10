// Where a process's CPU goes, by step: with $LAKESTREAM_CPU_PROFILE set to a file, each CpuScope
// adds the CPU time its thread spent inside it to its label (under the thread's name, so that the
// stages of continuous mode are told apart), and the totals are written to that file as the
// process exits. Off (one branch per scope) otherwise. Scopes nest; each label is inclusive.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream {

class CpuScope {
 public:
  explicit CpuScope(const char* label);
  // A label made at run time (say, a statement's first words); only built when profiling.
  explicit CpuScope(const std::string& label);
  ~CpuScope();
  CpuScope(const CpuScope&) = delete;
  CpuScope& operator=(const CpuScope&) = delete;

  // True when $LAKESTREAM_CPU_PROFILE is set.
  static bool enabled();
  // The CPU the calling thread has used so far (always measured, profiling or not).
  static int64_t this_thread_ns();

 private:
  std::string label_;
  int64_t started_ns_ = -1;
};

}  // namespace lakestream
