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
  int64_t events = 0;
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
};

// From each row's Kafka timestamp to the commit of the bronze version that holds it.
Latency bronze_latency(const std::string& bronze_path);

// From each bronze row's Kafka timestamp to the first commit of the table at `table_path` (written
// by a latest or window stream from that bronze) whose batch read the row's bronze version. Rows
// of versions it has not read yet are left out.
Latency downstream_latency(const std::string& bronze_path, const std::string& table_path);

}  // namespace lakestream::bench
