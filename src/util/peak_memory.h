// A process's peak resident memory as the kernel counts it for this program image (VmHWM),
// which, unlike getrusage's ru_maxrss, does not include what the parent held before exec.
#pragma once

#include <string>

namespace lakestream {

// VmHWM of this process in KiB (0 when /proc is not there).
long peak_rss_kib();

// When $LAKESTREAM_PEAK_RSS_FILE is set, writes peak_rss_kib() there as the process exits
// (for `lakestream bench`, which runs each step as a child).
void report_peak_rss_at_exit();

}  // namespace lakestream
