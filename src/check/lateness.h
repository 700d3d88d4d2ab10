// The lateness profile of a window stream (`lakestream lateness STREAM`): from the events its
// source table (bronze) holds, in the order they arrived, what each candidate watermark delay
// would have cost: how many events it would have dropped as late, and how long it would have
// held a window open after its end. This lets the user choose the watermark from real data.
//
// Events are taken in the order the stream reads them: bronze batch by batch (_batch_id), then
// partition and offset. The watermark an event meets is the newest event time of the batches
// before its own minus the delay, as in a stream run after each ingest batch: events sent in bulk
// share a batch and are never late to each other. A stream that reads several batches at once
// advances its watermark less often, so it drops at most this many.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"

namespace lakestream {

struct LatenessRow {
  int64_t delay_us = 0;
  bool configured = false;       // the stream's own watermark delay
  int64_t dropped = 0;           // events the delay would have dropped
  int64_t windows_closed = 0;    // windows whose end plus the delay the data passed
  int64_t windows_open = 0;      // windows the data never closed with this delay
  double median_hold_s = 0;      // arrival time from a window's end reached to the window closed
  double max_hold_s = 0;
};

struct LatenessProfile {
  std::string stream;
  std::string source_table;
  int64_t events = 0;            // with an event time, after the stream's filter
  int64_t max_lateness_us = 0;   // the latest arrival: how far behind the newest event time before it
  std::vector<LatenessRow> rows; // by delay, ascending
};

// Candidate delays: 0, 1m, 5m, 15m, 30m, 1h, 2h, 6h, 12h, 1d and the stream's own.
LatenessProfile lateness_profile(const Pipeline& pipeline, const std::string& stream_name);

std::string format_lateness(const LatenessProfile& profile);

// "90s" -> "1m30s", "3600s" -> "1h": a compact duration for tables.
std::string compact_duration(int64_t us);

}  // namespace lakestream
