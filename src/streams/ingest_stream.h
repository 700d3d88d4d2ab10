// The ingest stream (bronze): appends every record of a Kafka topic to a Delta table as Kafka
// holds it: the schema's fields parsed from the JSON (or Avro) value, then partition, offset,
// kafka_timestamp, key, _batch_id, _ingested_at. Records that do not fit the schema go to
// <table>_quarantine with the reason, in the same batch; nothing is dropped silently.
#pragma once

#include <vector>

#include "streams/stream_context.h"
#include "table/delta_table.h"

namespace lakestream {

// Reads what is new since the last run, up to the end offsets seen when the run starts (Spark's
// Trigger.AvailableNow), in micro-batches capped by max_offsets_per_trigger, and stops. Each batch
// is planned in the stream's checkpoint (micro_batches.h) and read and written by kafka_batches.h;
// a stream with workers runs as one of its consumer group's (ingest_worker.h), and one of a
// Kinesis source reads its shards (kinesis_ingest.h).
StreamReport run_ingest_stream(StreamContext& ctx);

// The Delta schemas of the bronze table and of its quarantine table. The first may take the
// columns of the source's fields (an Avro source's come from its writer schemas).
std::vector<delta::Column> bronze_columns(const Source& source, std::vector<delta::Column> fields);
std::vector<delta::Column> bronze_columns(const Source& source);
std::vector<delta::Column> quarantine_columns(const Source& source);

}  // namespace lakestream
