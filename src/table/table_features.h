// The table feature gate: which Delta protocols and table features lakestream reads and writes.
// A table asking for more (deletion vectors, column mapping, ...) is refused with a message
// instead of being read wrong or written into a state its other readers refuse.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "table/delta_log_json.h"
#include "table/delta_table.h"

namespace lakestream::delta {

// Throws Error when this reader cannot read a table with `protocol` and `metadata`: a reader
// version above 3, a reader feature it does not implement, or active column mapping (reader 2).
void check_readable(const Protocol& protocol, const Metadata& metadata, const std::string& table_path);

// Throws Error when lakestream must not write to the table: a writer version above 7, a writer
// feature it does not know, a reader feature it could not read back, or one of the features it
// writes only while the table does not use them (change data feed, generated and identity
// columns) in use.
void check_writable(const Protocol& protocol, const Metadata& metadata, const std::string& table_path);

// The protocol a commit must leave the table with, given the metadata the table has after it;
// nullopt when `current` (none for a new table) already fits. A schema holding timestamp_ntz
// needs the timestampNtz feature, `delta.enableDeletionVectors = true` the deletionVectors feature
// (reader 3 / writer 7 both); otherwise a new table gets (1, 2).
std::optional<Protocol> protocol_needed(const std::optional<Protocol>& current, const Metadata& metadata);

// True when the table property `property` is set to `wanted` (lowercase), in any case, as Delta
// reads its boolean properties.
bool table_property_is(const std::map<std::string, std::string>& configuration, const char* property,
                       const char* wanted);

// True when the table property delta.enableDeletionVectors is true (in any case).
bool deletion_vectors_enabled(const Metadata& metadata);

// True when the table property delta.enableChangeDataFeed is true: every commit that changes or
// takes out rows writes them with their change type (write_change_data_file, table/parquet_file.h), and the protocol
// has the changeDataFeed writer feature (writer 4 or later).
bool change_data_feed_enabled(const Metadata& metadata);

// True when the table's commits carry in-commit timestamps: the inCommitTimestamp writer feature
// and delta.enableInCommitTimestamps = true.
bool in_commit_timestamps_enabled(const Protocol& protocol, const Metadata& metadata);

// True when the table's row ids must stay stable through rewrites: the rowTracking writer feature
// and delta.enableRowTracking = true. lakestream then refuses commits that move rows to new files
// (copy-on-write, compaction), whose ids it would have to materialize.
bool row_tracking_enabled(const Protocol& protocol, const Metadata& metadata);

// True when `protocol` has the feature (as a table feature, or implied by its legacy versions).
bool has_feature(const Protocol& protocol, const std::string& feature);

// True when the schema has a timestamp_ntz column or field, at any depth.
bool uses_timestamp_ntz(const std::vector<Column>& schema);

}  // namespace lakestream::delta
