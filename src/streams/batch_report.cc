#include "streams/batch_report.h"

#include <algorithm>
#include <cstdio>

#include "storage/request_counts.h"
#include "util/cpu_profile.h"
#include "util/plural.h"

namespace lakestream {

std::string format_batch_line(const StreamReport& stream, const BatchReport& b) {
  std::string line = stream.stream;
  if (!stream.partitions_held.empty()) line += " [partitions " + stream.partitions_held + "]";
  line += ": batch " + std::to_string(b.batch_id);
  if (b.replayed) line += " (replayed after a crash)";
  line += ": " + std::to_string(b.input_rows) + " in, " + std::to_string(b.output_rows) + " out to " + stream.table;
  if (b.quarantined) line += ", " + std::to_string(b.quarantined) + " quarantined";
  if (b.tombstones) line += ", " + counted(b.tombstones, "tombstone", "tombstones") + " skipped";
  if (b.deletes) line += ", " + std::to_string(b.deletes) + " deleted";
  if (b.late_dropped) line += ", " + std::to_string(b.late_dropped) + " late dropped";
  if (b.duplicates_dropped) line += ", " + counted(b.duplicates_dropped, "duplicate", "duplicates") + " dropped";
  if (b.already_committed) line += " (already committed; not written again)";
  char ms[32];
  std::snprintf(ms, sizeof ms, " (%.0f ms)", b.seconds * 1000);
  line += ms;
  if (!b.warning.empty()) line += "\n  warning: " + b.warning;
  return line;
}

}  // namespace lakestream

namespace lakestream {

int64_t wall_clock_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int64_t ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
}

PhaseStart PhaseStart::now() {
  return {std::chrono::steady_clock::now(), CpuScope::this_thread_ns(), storage::this_thread_store_wait_us()};
}

void finish_timings(BatchReport& batch, std::optional<int64_t> oldest_input_ms, const PhaseStart& processing,
                    std::chrono::steady_clock::time_point started) {
  if (oldest_input_ms) batch.input_wait_ms = std::max<int64_t>(0, wall_clock_us() / 1000 - *oldest_input_ms);
  batch.durations_ms["addBatch"] = ms_since(processing.at);
  batch.durations_ms["addBatchCpu"] = (CpuScope::this_thread_ns() - processing.cpu_ns) / 1000000;
  batch.durations_ms["addBatchStoreWait"] = (storage::this_thread_store_wait_us() - processing.store_wait_us) / 1000;
  batch.durations_ms["triggerExecution"] = ms_since(started);
}

}  // namespace lakestream
