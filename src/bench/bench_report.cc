#include "bench/bench_report.h"

#include <algorithm>
#include <cstdio>

namespace lakestream::bench {

std::string format_bench(const BenchResult& result) {
  char line[512];
  std::string text;
  // The columns line up whatever the descriptions' lengths.
  int what = 52;
  for (const auto& m : result.measurements) what = std::max(what, static_cast<int>(m.what.size()));
  int goal = 52;
  for (const auto& t : result.targets) goal = std::max(goal, static_cast<int>(t.goal.size()));
  std::snprintf(line, sizeof line, "%-12s %-20s %-*s %12s %9s %9s %9s\n", "workload", "step", what, "what", "events/s",
                "seconds", "cpu s", "peak MiB");
  text += line;
  for (const auto& m : result.measurements) {
    std::snprintf(line, sizeof line, "%-12s %-20s %-*s %12.0f %9.3f %9.3f %9.1f\n", m.workload.c_str(), m.name.c_str(), what,
                  m.what.c_str(), m.per_second(), m.seconds, m.cpu_seconds, m.peak_rss_mib);
    text += line;
    if (m.store_requests >= 0) {
      std::snprintf(line, sizeof line, "%-12s %-20s   %lld store requests in %lld batches: %.1f a batch; %.1f MB sent, %.1f MB received\n",
                    "", "", static_cast<long long>(m.store_requests), static_cast<long long>(m.batches),
                    m.batches > 0 ? static_cast<double>(m.store_requests) / m.batches : 0.0, m.store_mb_sent,
                    m.store_mb_received);
      text += line;
    }
    if (m.p99_ms >= 0) {
      std::snprintf(line, sizeof line, "%-12s %-20s   latency p50 %.0f ms, p99 %.0f ms, max %.0f ms; %.2f cores\n", "", "",
                    m.p50_ms, m.p99_ms, m.max_ms, m.seconds > 0 ? m.cpu_seconds / m.seconds : 0);
      text += line;
    }
    if (m.bytes_written >= 0) {
      double batches = static_cast<double>(std::max<int64_t>(1, m.batches));
      std::snprintf(line, sizeof line,
                    "%-12s %-20s   %lld batches: %.0f CPU-ms, %.2f MB of data (%.1fx the batch's rows), %.3f MB of vectors "
                    "and %.2f MB of change data a batch\n",
                    "", "", static_cast<long long>(m.batches), m.cpu_seconds * 1000 / batches,
                    static_cast<double>(m.bytes_written) / batches / 1e6,
                    static_cast<double>(m.bytes_written) / static_cast<double>(std::max<int64_t>(1, m.batch_bytes)),
                    static_cast<double>(m.vector_bytes) / batches / 1e6, static_cast<double>(m.change_bytes) / batches / 1e6);
      text += line;
      if (m.first_batch_ms >= 0) {
        std::snprintf(line, sizeof line, "%-12s %-20s   first batch %.0f ms, the others %.0f ms (median)\n", "", "",
                      m.first_batch_ms, m.later_batch_ms);
        text += line;
      }
    }
    if (m.bronze_files >= 0) {
      std::snprintf(line, sizeof line, "%-12s %-20s   %.1f CPU-us per event; files at the end: bronze %lld, silver %lld, gold %lld\n",
                    "", "", m.events > 0 ? m.cpu_seconds * 1e6 / static_cast<double>(m.events) : 0.0,
                    static_cast<long long>(m.bronze_files), static_cast<long long>(m.silver_files),
                    static_cast<long long>(m.gold_files));
      text += line;
    }
  }
  text += "\n";
  for (const auto& t : result.targets) {
    std::snprintf(line, sizeof line, "%-8s %-12s %-*s %.3g\n", t.met ? "met" : "MISSED", t.workload.c_str(), goal,
                  t.goal.c_str(), t.value);
    text += line;
  }
  return text;
}

nlohmann::json bench_json(const BenchResult& result) {
  nlohmann::json j = {{"events", result.options.events},
                      {"partitions", result.options.partitions},
                      {"max_offsets_per_trigger", result.options.max_offsets_per_trigger},
                      {"feed_bytes", result.feed_bytes},
                      {"measurements", nlohmann::json::array()},
                      {"targets", nlohmann::json::array()}};
  for (const auto& m : result.measurements) {
    j["measurements"].push_back({{"workload", m.workload},
                                 {"name", m.name},
                                 {"what", m.what},
                                 {"events", m.events},
                                 {"seconds", m.seconds},
                                 {"cpu_seconds", m.cpu_seconds},
                                 {"events_per_second", m.per_second()},
                                 {"peak_rss_mib", m.peak_rss_mib}});
    if (m.store_requests >= 0) {
      auto& added = j["measurements"].back();
      added["store_requests"] = m.store_requests;
      added["batches"] = m.batches;
      added["store_mb_sent"] = m.store_mb_sent;
      added["store_mb_received"] = m.store_mb_received;
    }
    if (m.p99_ms >= 0) {
      auto& added = j["measurements"].back();
      added["latency_ms"] =
          nlohmann::json{{"p50", m.p50_ms}, {"p99", m.p99_ms}, {"max", m.max_ms}, {"samples", m.latency_samples}};
      added["cores"] = m.seconds > 0 ? m.cpu_seconds / m.seconds : 0;
    }
    if (m.bytes_written >= 0)
      j["measurements"].back().update(
          nlohmann::json{{"batches", m.batches},
                         {"bytes_written", m.bytes_written},
                         {"vector_bytes", m.vector_bytes},
                         {"change_bytes", m.change_bytes},
                         {"batch_bytes", m.batch_bytes},
                         {"cpu_ms_per_batch", m.batches > 0 ? m.cpu_seconds * 1000 / static_cast<double>(m.batches) : 0},
                         {"first_batch_ms", m.first_batch_ms},
                         {"later_batch_ms", m.later_batch_ms}});
    if (m.bronze_files >= 0) {
      auto& added = j["measurements"].back();
      added["cpu_us_per_event"] = m.events > 0 ? m.cpu_seconds * 1e6 / static_cast<double>(m.events) : 0;
      added["files"] = nlohmann::json{{"bronze", m.bronze_files}, {"silver", m.silver_files}, {"gold", m.gold_files}};
    }
  }
  for (const auto& t : result.targets)
    j["targets"].push_back({{"workload", t.workload}, {"name", t.name}, {"goal", t.goal}, {"value", t.value}, {"met", t.met}});
  j["workloads"] = result.options.workloads;
  j["all_targets_met"] = result.all_targets_met();
  return j;
}

}  // namespace lakestream::bench
