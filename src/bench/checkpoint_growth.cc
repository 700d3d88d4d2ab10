#include "bench/checkpoint_growth.h"

#include <chrono>
#include <ctime>
#include <fstream>
#include <string>

#include "table/delta_table.h"
#include "util/files.h"

namespace lakestream::bench {

namespace {

double process_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// Resets the process's peak resident memory (VmHWM) to what it holds now: the workload runs in the
// bench's own process, whose peak so far is the table it built, not the checkpoint's. False where
// the kernel refuses.
bool reset_peak_rss() {
  std::ofstream clear_refs("/proc/self/clear_refs");
  clear_refs << "5";
  clear_refs.flush();
  return clear_refs.good();
}

// The process's peak resident memory since the last reset, in MiB (VmHWM of /proc/self/status).
double peak_rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  return 0;
}

delta::AddFile named_file(int64_t i) {
  delta::AddFile file;
  file.path = "part-" + std::to_string(i) + "-" + new_uuid() + ".parquet";
  file.size = 4096;
  file.stats = "{\"numRecords\":100}";
  return file;
}

CheckpointCost timed_checkpoint(const std::string& table, int64_t version) {
  const bool peak_reset = reset_peak_rss();
  const double cpu = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  delta::write_checkpoint(delta::Table(table), version);
  CheckpointCost cost;
  cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cost.cpu_seconds = process_cpu_seconds() - cpu;
  if (peak_reset) cost.peak_rss_mib = peak_rss_mib();
  return cost;
}

}  // namespace

CheckpointGrowth measure_checkpoint_growth(const std::string& table, const std::string& policy, int64_t tombstones) {
  // As a service keeps its replays: each commit's snapshot applies the commits since the last,
  // rather than replaying the whole log again (without a checkpoint, the square of its length).
  delta::remember_checkpoints(true);
  struct Forget {
    ~Forget() { delta::remember_checkpoints(false); }
  } forget;
  delta::Metadata metadata;
  metadata.schema = {{"id", "long"}};
  // No checkpoint but the ones timed here.
  metadata.configuration["delta.checkpointInterval"] = "1000000000";
  metadata.configuration["delta.checkpointPolicy"] = policy;
  {
    delta::Commit commit(delta::load_snapshot(delta::Table(table)));
    commit.set_metadata(metadata);
    commit.publish();
  }
  // The small files, 10,000 a commit, then compacted away as many a commit, into one file each.
  constexpr int64_t kPerCommit = 10'000;
  int64_t next = 0;
  for (int64_t from = 0; from < tombstones; from += kPerCommit) {
    const int64_t count = std::min(kPerCommit, tombstones - from);
    std::vector<delta::AddFile> files;
    delta::Commit add(delta::load_snapshot(delta::Table(table)));
    for (int64_t i = 0; i < count; i++) {
      files.push_back(named_file(next++));
      add.add(files.back());
    }
    add.publish();
    delta::Commit compact(delta::load_snapshot(delta::Table(table)));
    for (const auto& file : files) compact.remove(file, false);
    compact.add(named_file(next++));
    compact.publish();
  }
  CheckpointGrowth growth;
  int64_t version = delta::latest_version(delta::Table(table));
  growth.first = timed_checkpoint(table, version);
  // As a service goes on: each commit a small file, compacted at the next.
  for (int i = 0; i < 10; i++) {
    delta::Snapshot snapshot = delta::load_snapshot(delta::Table(table));
    delta::Commit commit(snapshot);
    commit.remove(snapshot.files.back(), false);
    commit.add(named_file(next++));
    version = commit.publish();
  }
  growth.next = timed_checkpoint(table, version);
  return growth;
}

}  // namespace lakestream::bench
