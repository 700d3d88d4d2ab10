// What PROTOCOL.md asks of readers and writers per version and feature, and the subset
// lakestream implements: reads reader 1, reader 2 (column mapping) and reader 3 with
// timestampNtz, deletionVectors (table/deletion_vector.h), v2Checkpoint (table/checkpoint_reader.h),
// columnMapping (table/column_mapping.h) and vacuumProtocolCheck (which asks nothing of readers);
// writes writer 2 and 3 (append-only, invariants, CHECK constraints: table/write_rules.h), 4 with
// the change data feed (write_change_data_file, table/parquet_file.h), 5 and 6 while their other features are unused, and
// writer 7 with those features, timestampNtz,
// deletionVectors (files are removed with their vectors; rewrites drop the deleted rows),
// v2Checkpoint (its checkpoints are classic-named ones of the v2 spec) and the features below.
#include "table/table_features.h"

#include <algorithm>
#include <set>

#include "table/column_mapping.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

const std::set<std::string> kReaderFeatures = {"timestampNtz", "vacuumProtocolCheck", "deletionVectors", "v2Checkpoint",
                                               "columnMapping"};
// domainMetadata: the domains are kept and carried into checkpoints (lakestream writes none);
// clustering: a clustered table is never partitioned and its files have stats on every column;
// inCommitTimestamp: each commit's commitInfo comes first with a monotonic inCommitTimestamp;
// rowTracking: fresh row ids for new files, kept for files added again with a deletion vector; a
// commit that moves rows to new files is refused while delta.enableRowTracking is true (their ids
// would have to be materialized).
// columnMapping: new columns get ids and physical names, data files, stats and partition values
// use them (table/column_mapping.h).
// changeDataFeed: with delta.enableChangeDataFeed on, a commit that changes rows writes them in
// cdc files (write_change_data_file, table/parquet_file.h); one that would not is refused (Commit::publish).
const std::set<std::string> kWriterFeatures = {"appendOnly",      "invariants",     "checkConstraints",
                                               "timestampNtz",    "deletionVectors", "v2Checkpoint",
                                               "domainMetadata",  "clustering",     "inCommitTimestamp",
                                               "rowTracking",     "columnMapping",  "changeDataFeed"};
// Writer features that ask nothing of a writer until the table uses them: generated and
// identity columns until a column is one. Databricks lists them on tables that never use them;
// lakestream writes such tables and refuses the ones that use them (inactive_or_refused).
const std::set<std::string> kWriterFeaturesWhileUnused = {"generatedColumns", "identityColumns"};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::vector<std::string> unknown(const std::vector<std::string>& features, const std::set<std::string>& known) {
  std::vector<std::string> out;
  for (const auto& feature : features)
    if (!known.count(feature)) out.push_back(feature);
  return out;
}

bool type_uses_ntz(const nlohmann::json& type) {
  if (type.is_string()) return type.get<std::string>() == "timestamp_ntz";
  if (!type.is_object()) return false;
  if (auto fields = type.find("fields"); fields != type.end() && fields->is_array())
    for (const auto& field : *fields)
      if (field.contains("type") && type_uses_ntz(field["type"])) return true;
  for (const char* key : {"elementType", "keyType", "valueType"})
    if (auto inner = type.find(key); inner != type.end() && type_uses_ntz(*inner)) return true;
  return false;
}

// The writer features a legacy writer version implies (the spec's table of versions).
std::vector<std::string> legacy_writer_features(int writer_version) {
  std::vector<std::string> features;
  if (writer_version >= 2) features = {"appendOnly", "invariants"};
  if (writer_version >= 3) features.push_back("checkConstraints");
  if (writer_version >= 4) features.insert(features.end(), {"changeDataFeed", "generatedColumns"});
  if (writer_version >= 5) features.push_back("columnMapping");
  if (writer_version >= 6) features.push_back("identityColumns");
  return features;
}

bool any_column_has(const Metadata& metadata, const std::string& key_prefix) {
  for (const auto& column : metadata.schema)
    for (const auto& [key, value] : column.metadata.items())
      if (key.starts_with(key_prefix)) return true;
  return false;
}

// Why the table uses `feature` (one of kWriterFeaturesWhileUnused), or "" when it does not.
std::string use_of(const std::string& feature, const Metadata& metadata) {
  if (feature == "generatedColumns")
    return any_column_has(metadata, "delta.generationExpression") ? "a column is generated (delta.generationExpression)" : "";
  return any_column_has(metadata, "delta.identity.") ? "a column is an identity column (delta.identity.*)" : "";
}

void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

}  // namespace

bool uses_timestamp_ntz(const std::vector<Column>& schema) {
  return std::any_of(schema.begin(), schema.end(), [](const Column& c) { return type_uses_ntz(c.type); });
}

bool has_feature(const Protocol& protocol, const std::string& feature) {
  auto listed = [&](const std::vector<std::string>& names) {
    return std::find(names.begin(), names.end(), feature) != names.end();
  };
  if (protocol.min_writer_version >= 7) return listed(protocol.writer_features) || listed(protocol.reader_features);
  return listed(legacy_writer_features(protocol.min_writer_version));
}

void check_readable(const Protocol& protocol, const Metadata& metadata, const std::string& table_path) {
  const std::string advice = ". Read it with Spark, Databricks or delta-rs, or rewrite it without that feature";
  if (protocol.min_reader_version > 3)
    throw Error("table " + table_path + " needs a Delta reader of version " +
                std::to_string(protocol.min_reader_version) + "; lakestream reads versions 1 to 3" + advice);
  auto mode = metadata.configuration.find("delta.columnMapping.mode");
  bool column_mapping = mode != metadata.configuration.end() && mode->second != "none";
  if (protocol.min_reader_version == 3) {
    auto missing = unknown(protocol.reader_features, kReaderFeatures);
    if (!missing.empty())
      throw Error("table " + table_path + " uses the Delta reader feature(s) " + joined(missing) +
                  ", which lakestream does not implement (it reads: timestampNtz, vacuumProtocolCheck, deletionVectors, v2Checkpoint, columnMapping)" + advice);
  }
  if (column_mapping && mode->second != "name" && mode->second != "id")
    throw Error("table " + table_path + " has delta.columnMapping.mode = " + mode->second +
                ", which the protocol does not know (it knows none, name and id)" + advice);
}

void check_writable(const Protocol& protocol, const Metadata& metadata, const std::string& table_path) {
  const std::string advice = ". Write to a new table, or use Spark for this one";
  if (protocol.min_writer_version > 7)
    throw Error("table " + table_path + " needs a Delta writer of version " +
                std::to_string(protocol.min_writer_version) + ", newer than lakestream knows" + advice);
  const auto features = protocol.min_writer_version >= 7 ? protocol.writer_features
                                                         : legacy_writer_features(protocol.min_writer_version);
  for (const auto& feature : features) {
    if (!kWriterFeaturesWhileUnused.count(feature)) continue;
    std::string use = use_of(feature, metadata);
    if (!use.empty())
      throw Error("table " + table_path + " uses the Delta writer feature " + feature + ": " + use +
                  "; lakestream does not implement it" + advice);
  }
  auto missing = unknown(protocol.writer_features, kWriterFeatures);
  for (auto it = missing.begin(); it != missing.end();)
    it = kWriterFeaturesWhileUnused.count(*it) ? missing.erase(it) : std::next(it);
  auto missing_readers = unknown(protocol.reader_features, kReaderFeatures);
  for (const auto& feature : missing_readers) add_once(missing, feature);
  if (protocol.min_writer_version == 7 && !missing.empty())
    throw Error("table " + table_path + " uses the Delta writer feature(s) " + joined(missing) +
                ", which lakestream does not implement (it writes: appendOnly, invariants, checkConstraints, "
                "timestampNtz, deletionVectors, v2Checkpoint, domainMetadata, clustering, inCommitTimestamp, rowTracking, "
                "columnMapping, changeDataFeed; and generatedColumns and identityColumns while the table does not use them)" + advice);
}

bool table_property_is(const std::map<std::string, std::string>& configuration, const char* property,
                       const char* wanted) {
  auto it = configuration.find(property);
  if (it == configuration.end()) return false;
  std::string value;
  for (char c : it->second) value += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return value == wanted;
}

namespace {

bool property_true(const Metadata& metadata, const char* property) {
  return table_property_is(metadata.configuration, property, "true");
}

}  // namespace

bool deletion_vectors_enabled(const Metadata& metadata) { return property_true(metadata, "delta.enableDeletionVectors"); }

bool change_data_feed_enabled(const Metadata& metadata) { return property_true(metadata, "delta.enableChangeDataFeed"); }

bool row_tracking_enabled(const Protocol& protocol, const Metadata& metadata) {
  return has_feature(protocol, "rowTracking") && property_true(metadata, "delta.enableRowTracking");
}

bool in_commit_timestamps_enabled(const Protocol& protocol, const Metadata& metadata) {
  return has_feature(protocol, "inCommitTimestamp") && property_true(metadata, "delta.enableInCommitTimestamps");
}

std::optional<Protocol> protocol_needed(const std::optional<Protocol>& current, const Metadata& metadata) {
  // The reader-writer features the metadata asks for: timestampNtz for a timestamp_ntz column,
  // deletionVectors when delta.enableDeletionVectors is true.
  std::vector<std::string> features;
  if (uses_timestamp_ntz(metadata.schema)) features.push_back("timestampNtz");
  if (deletion_vectors_enabled(metadata)) features.push_back("deletionVectors");
  if (uses_column_mapping(metadata)) features.push_back("columnMapping");
  // v2Checkpoint when delta.checkpointPolicy is v2, as Spark enables it: checkpoints with sidecars
  // (table/checkpoint_sidecars.h).
  if (table_property_is(metadata.configuration, "delta.checkpointPolicy", "v2")) features.push_back("v2Checkpoint");
  // And the one writer feature: the change data feed when delta.enableChangeDataFeed is true.
  const bool change_data = change_data_feed_enabled(metadata);
  bool missing = change_data && (!current || !has_feature(*current, "changeDataFeed"));
  for (const auto& feature : features) missing = missing || !current || !has_feature(*current, feature);
  if (current && !missing) return std::nullopt;
  Protocol needed;
  if (features.empty()) {
    if (!change_data) return needed;  // a new table: (1, 2)
    // The feed alone: writer 4 (which implies it), or the feature listed under writer 7.
    if (current && current->min_writer_version >= 7) {
      needed = *current;
      add_once(needed.writer_features, "changeDataFeed");
      return needed;
    }
    if (current) {
      needed.min_reader_version = current->min_reader_version;
      needed.reader_features = current->reader_features;
    }
    needed.min_writer_version = 4;
    return needed;
  }
  // Reader-writer features need reader 3 / writer 7, listed in both lists; the features the
  // older versions implied are listed too, so none of their rules lapses.
  needed.min_reader_version = 3;
  needed.min_writer_version = 7;
  if (current) {
    if (current->min_reader_version >= 3) needed.reader_features = current->reader_features;
    if (current->min_reader_version == 2) needed.reader_features = {"columnMapping"};  // what reader 2 implies
    needed.writer_features = current->min_writer_version >= 7 ? current->writer_features
                                                              : legacy_writer_features(current->min_writer_version);
  } else {
    needed.writer_features = legacy_writer_features(2);
  }
  for (const auto& feature : features) {
    add_once(needed.reader_features, feature);
    add_once(needed.writer_features, feature);
  }
  if (change_data) add_once(needed.writer_features, "changeDataFeed");
  return needed;
}

}  // namespace lakestream::delta
