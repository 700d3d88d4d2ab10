#include "util/peak_memory.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace lakestream {

long peak_rss_kib() {
  FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return 0;
  char line[256];
  long kib = 0;
  while (std::fgets(line, sizeof line, status))
    if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::strtol(line + 6, nullptr, 10);
  std::fclose(status);
  return kib;
}

void report_peak_rss_at_exit() {
  if (!std::getenv("LAKESTREAM_PEAK_RSS_FILE")) return;
  std::atexit([] {
    if (FILE* out = std::fopen(std::getenv("LAKESTREAM_PEAK_RSS_FILE"), "w")) {
      std::fprintf(out, "%ld\n", peak_rss_kib());
      std::fclose(out);
    }
  });
}

}  // namespace lakestream
