// The benchmark's results as a table for people and as JSON for comparing runs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_run.h"

namespace lakestream::bench {

// A fixed-width table: one line per measurement (events/s, seconds, peak RSS), then the targets.
std::string format_bench(const BenchResult& result);

// {"events", "partitions", "max_offsets_per_trigger", "feed_bytes", "workloads", "measurements":
// [{workload, name, what, events, seconds, cpu_seconds, events_per_second, peak_rss_mib}],
// "targets": [{workload, name, goal, value, met}], "all_targets_met"}.
nlohmann::json bench_json(const BenchResult& result);

}  // namespace lakestream::bench
