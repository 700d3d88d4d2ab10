// The record decoder: turns a micro-batch of raw Kafka records (bytes) into typed rows of the
// source's schema, inside DuckDB, in one SQL pass. Every record that does not fit the schema is
// kept with the reason why, so the ingest stream can quarantine it instead of dropping it.
#pragma once

#include <string>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream {

// Creates (or replaces) the temporary DuckDB table `out_table` from the table `raw_table`, one
// row per raw row, none added or lost.
//
// raw_table columns: partition INTEGER, "offset" BIGINT, kafka_timestamp TIMESTAMPTZ, key BLOB,
//   value BLOB, utf8 BOOLEAN (true when key and value are valid UTF-8; NULL or false makes the
//   decoder find out which of the two is not).
//   A source with a Debezium envelope adds doc VARCHAR (the record's row as read from its
//   envelope, decoded instead of the value) and envelope_reason VARCHAR (why the value is no
//   change event the table takes; checked after the UTF-8, empty and size gates).
// out_table columns: the schema's fields with their DuckDB types (Field::duckdb_type()), then
//   partition, "offset", kafka_timestamp, key VARCHAR, value BLOB, reason VARCHAR.
//
// reason is NULL for a good record, else the first problem found, in this order: the value or
// key is not UTF-8, the value is empty, over source.max_value_bytes, not valid JSON, not a JSON
// object, then per field in schema order: a required field missing, or a value that does not
// fit its type exactly ("field \"amount\": \"abc\" is not a decimal(18,2)"). Nothing is rounded
// or coerced: a value that would change is a reason. For a bad record the field columns hold
// whatever did decode; only reason and the Kafka columns are meant to be used. JSON is read as
// DuckDB reads it: trailing commas and NaN pass as JSON (NaN is then no double), and of a key
// written twice the first counts.
//
// Throws Error when a schema field is named like one of the Kafka columns above (the output
// would have two columns of that name), or when DuckDB fails.
void decode_records(sql::Connection& con, const Source& source, const std::string& raw_table,
                    const std::string& out_table);

}  // namespace lakestream
