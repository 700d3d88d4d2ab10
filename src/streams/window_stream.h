// The window stream (gold): event-time aggregates over tumbling windows with Spark Structured
// Streaming's semantics (see docs/event-time.md): an optional SQL filter; a watermark (max event
// time seen minus a delay, advanced at the end of each batch and used by the next); rows older
// than it dropped as late and counted; optional drop-duplicates-within-watermark; windows
// [start, end) aligned to the epoch in UTC; output `append` (a window written once, when the
// watermark passes its end) or `update` (changed windows upserted every batch).
//
// State (open windows, remembered dedup keys, the watermark) lives in the stream's checkpoint
// database, updated in one transaction with the batch's progress and its pending output (an
// outbox); the outbox is then committed to the table with the stream's txn and cleared. A crash
// at any point loses nothing and writes nothing twice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "streams/stream_context.h"

namespace lakestream {

StreamReport run_window_stream(StreamContext& ctx);

// What a window stream's state says now, for check and status. Reads the checkpoint database
// read-only; nullopt when the stream has not run yet. Throws Error when a run holds it.
struct WindowProgress {
  int64_t watermark_us = 0;
  int64_t last_batch = -1;
  int64_t open_windows = 0;
  int64_t dedup_keys = 0;
  // (source _batch_id, watermark): source batches up to that id (and after the previous entry's)
  // were judged late or not against that watermark.
  std::vector<std::pair<int64_t, int64_t>> watermark_history;
};
std::optional<WindowProgress> read_window_progress(const Pipeline& pipeline, const Stream& stream);

}  // namespace lakestream
