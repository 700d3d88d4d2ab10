// Freshness: how long an event takes from Kafka to a committed table, measured from the tables
// themselves. Each bronze row carries its Kafka timestamp, and the Delta log says when the version
// that added its file was committed (commitInfo.timestamp); a silver or gold commit says which
// bronze versions it read, so the first one that read an event's version is when that event
// reached it.
#pragma once

#include <cstdint>
#include <string>

namespace lakestream::bench {

struct Latency {
  int64_t events = 0;  // the samples: events, or for closed windows, gold rows
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// From each row's Kafka timestamp to the commit of the bronze version that holds it.
Latency bronze_latency(const std::string& bronze_path);

// From each bronze row's Kafka timestamp to the first commit of the table at `table_path` (written
// by a latest or window stream from that bronze) whose batch read the row's bronze version. Rows
// of versions it has not read yet are left out.
Latency downstream_latency(const std::string& bronze_path, const std::string& table_path);

// A window stream's shape, as the latency to its closed windows needs it.
struct WindowShape {
  std::string event_time_column;
  int64_t watermark_delay_ms = 0;
  int64_t window_ms = 0;
  std::string window_column = "window_start";
};

// For each row of the append-mode window table at `gold_path`: from the Kafka timestamp of the event
// that closed its window to the gold commit that wrote the row. The closing event is the first one,
// in bronze's order (by version, then Kafka timestamp), whose event time minus the watermark delay
// reaches the window's end: the watermark passes the end with it, so no engine can write the row
// before that event is read.
Latency closed_window_latency(const std::string& bronze_path, const std::string& gold_path, const WindowShape& window);

}  // namespace lakestream::bench
