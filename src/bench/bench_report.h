// The benchmark's results as a table for people and as JSON for comparing runs.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_run.h"

namespace lakestream::bench {

// A fixed-width table: one line per measurement (events/s, seconds, peak RSS), then the targets.
std::string format_bench(const BenchResult& result);

// {"events", "partitions", "max_offsets_per_trigger", "feed_bytes", "measurements": [{name, what,
// events, seconds, cpu_seconds, events_per_second, peak_rss_mib}], "targets": [{name, goal, value, met}]}.
nlohmann::json bench_json(const BenchResult& result);

}  // namespace lakestream::bench
