// `lakestream broker bench`: what the embedded broker spends to serve a consumer at the tail of a
// partition, with a short log and a long one, in the same run. The mock cluster once walked the
// whole log on every Fetch; with the index of packaging/librdkafka/ the cost must not grow with it.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace lakestream::bench {

struct BrokerFetchOptions {
  int64_t short_records = 100'000;     // records in the short partition before the rounds
  int64_t long_records = 10'000'000;   // records in the long one
  int records_per_batch = 100;         // the producer's batch: one record batch of the log each
  int round_records = 10'000;          // records produced and read at the tail per round
  int rounds = 10;                     // rounds per partition, the two partitions taking turns
  std::string dir = "lakestream-broker-bench";  // for the broker's address file (wiped first)
};

// One partition's figures over its rounds.
struct TailFetchCost {
  int64_t log_records = 0;          // records in the partition when the rounds began
  double broker_cpu_ms = 0;         // the broker's CPU per round of round_records (median)
  double round_ms = 0;              // wall time of a round, first send to last record read (median)
  double latency_p50_ms = 0;        // a record's send-to-read latency over all rounds
  double latency_p99_ms = 0;
};

struct BrokerFetchResult {
  BrokerFetchOptions options;
  TailFetchCost short_log, long_log;
  double fill_seconds = 0;  // producing both logs
  // long / short, the same run: the target is <= 1.5 for the CPU and the latency p50.
  double cpu_ratio() const { return long_log.broker_cpu_ms / short_log.broker_cpu_ms; }
  double latency_ratio() const { return long_log.latency_p50_ms / short_log.latency_p50_ms; }
  bool within_target() const { return cpu_ratio() <= 1.5 && latency_ratio() <= 1.5; }
};

// Starts `lakestream broker` as a child (its CPU read from /proc), fills a short and a long
// partition, then runs the rounds: each produces round_records fresh records and a consumer at
// the tail reads them. Progress goes to `progress`. Error when the broker or a client fails.
BrokerFetchResult measure_broker_fetch(const BrokerFetchOptions& options, std::ostream& progress);

// The figures as a table, with the ratios and whether they meet the target.
std::string format_broker_fetch(const BrokerFetchResult& result);

}  // namespace lakestream::bench
