// The Parquet columns of a Delta checkpoint as Spark writes them (the parts of them lakestream's
// actions use): a checkpoint's JSON action lines become Parquet through DuckDB's read_json with
// these columns, so Spark, delta-rs and DuckDB's delta extension read what lakestream writes.
#pragma once

namespace lakestream::delta {

#define LAKESTREAM_DELETION_VECTOR_TYPE \
  "STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, \"offset\" INTEGER, sizeInBytes INTEGER, cardinality BIGINT)"

#define LAKESTREAM_ADD_TYPE                                                                                         \
  "STRUCT(path VARCHAR, partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, modificationTime BIGINT, "              \
  "dataChange BOOLEAN, stats VARCHAR, tags MAP(VARCHAR, VARCHAR), deletionVector " LAKESTREAM_DELETION_VECTOR_TYPE \
  ", baseRowId BIGINT, defaultRowCommitVersion BIGINT)"

#define LAKESTREAM_REMOVE_TYPE                                                                                     \
  "STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, "              \
  "partitionValues MAP(VARCHAR, VARCHAR), size BIGINT, deletionVector " LAKESTREAM_DELETION_VECTOR_TYPE            \
  ", baseRowId BIGINT, defaultRowCommitVersion BIGINT)"

// The add and remove columns: all a sidecar file holds (PROTOCOL.md, "Sidecar Files").
constexpr const char* kFileActionTypes = "{'add': '" LAKESTREAM_ADD_TYPE "', 'remove': '" LAKESTREAM_REMOVE_TYPE "'}";
constexpr const char* kAddType = LAKESTREAM_ADD_TYPE;

// Every column of a checkpoint; metaData carries every field of the action, as the protocol
// requires of a checkpoint. checkpointMetadata and sidecar are the v2 spec's.
constexpr const char* kCheckpointColumns =
    "{'txn': 'STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT)', "
    "'add': '" LAKESTREAM_ADD_TYPE "', "
    "'remove': '" LAKESTREAM_REMOVE_TYPE "', "
    "'metaData': 'STRUCT(id VARCHAR, name VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, "
    "options MAP(VARCHAR, VARCHAR)), schemaString VARCHAR, partitionColumns VARCHAR[], "
    "configuration MAP(VARCHAR, VARCHAR), createdTime BIGINT)', "
    "'protocol': 'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, readerFeatures VARCHAR[], "
    "writerFeatures VARCHAR[])', "
    "'checkpointMetadata': 'STRUCT(version BIGINT, tags MAP(VARCHAR, VARCHAR))', "
    "'sidecar': 'STRUCT(path VARCHAR, sizeInBytes BIGINT, modificationTime BIGINT, tags MAP(VARCHAR, VARCHAR))', "
    "'domainMetadata': 'STRUCT(domain VARCHAR, configuration VARCHAR, removed BOOLEAN)'}";

}  // namespace lakestream::delta
