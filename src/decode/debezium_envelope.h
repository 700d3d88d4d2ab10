// Debezium's change event envelope, read from JSON: {"op", "before", "after", "source", "ts_ms"},
// bare or wrapped as {"schema": ..., "payload": {...}} (the JsonConverter's schemas.enable=true).
// The row an event carries (after for c/r/u, before for d) becomes the record the decoders see,
// its op and source position added as the members _op, _source_ts_ms and _source_lsn. The row's
// text is taken as it is written, never re-serialized, so that numbers keep every digit.
#pragma once

#include <string>
#include <string_view>

namespace lakestream {

enum class ChangeEvent {
  Row,        // `row` holds the event's row with its op and source position
  Tombstone,  // no event: Kafka's null value after a delete (or a null payload), for compaction
  Refused,    // not a change event the table can take: `reason` says why
};

// Reads one Kafka value (UTF-8, not null) as a Debezium change event. Row: `row` is a JSON
// object whose first members are "_op" (c, r, u or d), "_source_ts_ms" and "_source_lsn"
// (source.ts_ms and source.lsn when they are integers, else null), then the members of the row.
// Refused: `reason` is the quarantine's, e.g. "not a Debezium change event: no \"op\" member".
ChangeEvent read_change_event(std::string_view value, std::string& row, std::string& reason);

}  // namespace lakestream
