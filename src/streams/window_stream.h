// The window stream (gold): event-time aggregates over tumbling windows with Spark Structured
// Streaming's semantics (see docs/event-time.md): an optional SQL filter; a watermark (max event
// time seen minus a delay, advanced at the end of each batch and used by the next); rows older
// than it dropped as late and counted; optional drop-duplicates-within-watermark; windows
// [start, end) aligned to the epoch in UTC; output `append` (a window written once, when the
// watermark passes its end) or `update` (changed windows upserted every batch).
//
// State (open windows, remembered dedup keys, the watermark) lives in the stream's checkpoint
// (checkpoint/window_state_store.h), updated in one transaction with the batch's progress and its
// pending output (an outbox); the outbox is then committed to the table with the stream's txn and
// cleared. A crash at any point loses nothing and writes nothing twice.
#pragma once

#include "streams/stream_context.h"

namespace lakestream {

StreamReport run_window_stream(StreamContext& ctx);

}  // namespace lakestream
