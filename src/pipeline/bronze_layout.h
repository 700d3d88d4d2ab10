// The columns ingest adds to each event, after the event's fields, in bronze: where Kafka kept
// the record (partition, offset, kafka_timestamp, key), then which micro-batch wrote it
// (_batch_id, _ingested_at). The quarantine holds the Kafka columns, the record's value and the
// reason it was refused, then the batch columns. Every module that writes, reads or refuses these
// names takes them from here; docs/pipeline-file.md lists them for users.
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"  // Field

namespace lakestream {

// partition (int), offset (bigint), kafka_timestamp (timestamp), key (string).
const std::vector<Field>& kafka_columns();

// _batch_id (bigint: the batch, in a partitioned commit the table version) and _ingested_at
// (timestamp: when the batch wrote the row).
const std::vector<Field>& batch_columns();

// The quarantine's own two, between the Kafka and the batch columns: the record's bytes (binary)
// and why it was refused (string).
inline constexpr const char* kValueColumn = "value";
inline constexpr const char* kReasonColumn = "reason";

// The six above, in bronze's order: the lineage of a copy of an event, not what the event says.
const std::vector<Field>& lineage_columns();
bool is_lineage_column(const std::string& name);

}  // namespace lakestream
