// The ingest stream of a Kinesis source: every record of a Kinesis data stream into bronze, as
// the Kafka ingest stream does for a topic. A shard is a partition: bronze's `partition` is the
// shard's number (shardId-000000000003 is 3) and `offset` numbers the shard's records in the
// order read, from 0; the plan ties those numbers to the records' sequence numbers, so that a
// rerun after a crash reads exactly the same records again (docs/kinesis.md).
#pragma once

#include "streams/stream_context.h"

namespace lakestream {

// Reads what is new since the last run until every shard is read to its tip, in micro-batches of
// at most max_records_per_trigger records, parents before their children, and stops.
StreamReport run_kinesis_ingest(StreamContext& ctx);

}  // namespace lakestream
