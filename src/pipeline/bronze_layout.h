// The columns ingest adds to each event, after the event's fields, in bronze: where the source
// kept the record, then which micro-batch wrote it (_batch_id, _ingested_at). Of a Kafka topic:
// partition, offset, kafka_timestamp, key. Of a Kinesis stream (docs/kinesis.md): partition (the
// shard's number), offset (the record's ordinal in its shard), kinesis_arrival_timestamp, key (the
// partition key), kinesis_shard_id and kinesis_sequence_number. The quarantine holds the source's
// columns, the record's value and the reason it was refused, then the batch columns. Every module
// that writes, reads or refuses these names takes them from here; docs/pipeline-file.md lists them.
#pragma once

#include <string>
#include <vector>

#include "pipeline/pipeline.h"  // Field, Source

namespace lakestream {

// Of a Kafka topic: partition (int), offset (bigint), kafka_timestamp (timestamp), key (string).
const std::vector<Field>& kafka_columns();
// Of the source: a Kinesis stream's are kafka_columns() with its arrival time named for what it
// is, then kinesis_shard_id and kinesis_sequence_number (the exact decimal, as text).
const std::vector<Field>& source_columns(const Source& source);

// The column of when the source received the record, by source: kafka_timestamp or
// kinesis_arrival_timestamp.
const std::vector<std::string>& arrival_columns();
// Of a table's columns (anything with a name), the one of arrival_columns() it has, else "".
template <class Columns>
std::string arrival_column(const Columns& columns) {
  for (const auto& name : arrival_columns())
    for (const auto& column : columns)
      if (column.name == name) return name;
  return "";
}

// _batch_id (bigint: the batch, in a partitioned commit the table version) and _ingested_at
// (timestamp: when the batch wrote the row).
const std::vector<Field>& batch_columns();

// The quarantine's own two, between the source's and the batch columns: the record's bytes
// (binary) and why it was refused (string).
inline constexpr const char* kValueColumn = "value";
inline constexpr const char* kReasonColumn = "reason";

// The source's and the batch columns, in bronze's order: the lineage of a copy of an event, not
// what the event says.
std::vector<Field> lineage_columns(const Source& source);
// A column any source's ingest adds (so no source's field may be named so, and no reader takes
// it for part of the event).
bool is_lineage_column(const std::string& name);

}  // namespace lakestream
