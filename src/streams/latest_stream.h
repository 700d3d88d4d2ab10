// The latest stream (silver): keeps the newest row of each key of an append-only table, by an
// ordering column. Within a batch the newest row per key wins, a tie going to the later
// (partition, offset); across batches a key is updated only by a strictly newer row. Each batch
// is one copy-on-write MERGE commit with the stream's txn: exactly once.
#pragma once

#include "streams/stream_context.h"

namespace lakestream {

// Reads the versions committed to the source table since the last batch, merges them, stops.
StreamReport run_latest_stream(StreamContext& ctx);

}  // namespace lakestream
