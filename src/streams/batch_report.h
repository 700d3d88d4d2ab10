// What a stream did in one run, batch by batch: printed by `lakestream run` and kept for status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lakestream {

struct BatchReport {
  int64_t batch_id = -1;
  bool replayed = false;        // the batch was planned by a run that died, and run again now
  bool already_committed = false;  // its output was already in the table (a replay after the commit)
  int64_t input_rows = 0;
  int64_t output_rows = 0;      // rows written (or windows emitted, or keys merged)
  int64_t quarantined = 0;      // ingest: records sent to quarantine
  int64_t late_dropped = 0;     // window: rows older than the watermark
  int64_t duplicates_dropped = 0;  // window: copies dropped within the watermark
  int64_t watermark_us = 0;     // window: the watermark after this batch
  double seconds = 0;
  std::string description;      // e.g. "offsets 0:0-3 1:0-5" or "versions 3-4"
};

struct StreamReport {
  std::string stream;
  std::string table;
  std::vector<BatchReport> batches;
  double seconds = 0;
};

// One line for a batch, for the terminal: "read_orders  batch 3  1000 rows in -> 998 out, 2 quarantined  (12 ms)".
std::string format_batch_line(const StreamReport& stream, const BatchReport& batch);

}  // namespace lakestream
