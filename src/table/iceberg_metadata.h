// Iceberg metadata beside the Delta log, as Delta's UniForm writes it: after each commit to a
// table with `lakestream.iceberg = true`, an Iceberg v2 view of the same version is written
// under <table>/metadata/: a manifest listing every live data file with its partition values and
// statistics, a manifest list, `v<N>.metadata.json` (N = the Delta version + 1: its schema with
// the column mapping ids as field ids, an identity partition spec over the partition columns, the
// one current snapshot) and `version-hint.text` naming N, so that an Iceberg reader finds the
// table by its path (a Hadoop catalog). The Delta log stays the truth: the view is rebuilt whole
// from a version's snapshot, so writing it again is harmless, and a crash before it is written
// leaves the view one version behind, never wrong, until the next commit or run writes it.
//
// What the view holds of a version is exactly the Delta snapshot's files: the table needs column
// mapping in id mode (the Parquet files carry the field ids Iceberg readers look columns up by)
// and no deletion vectors (an Iceberg v2 reader would read the deleted rows). The partition
// columns stay out of the data files, as Delta writes them; the Iceberg spec has readers take an
// identity-partitioned column missing from a file from the manifest's partition values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "table/delta_table.h"

namespace lakestream::delta {

// How many of the newest views stay (Iceberg's write.metadata.previous-versions-max): a reader
// that registered an older metadata file refreshes to a newer one (or follows version-hint.text).
inline constexpr int64_t kIcebergViewsKept = 100;

// The table property that asks for the Iceberg view.
inline constexpr const char* kIcebergProperty = "lakestream.iceberg";

// True when the table's metadata asks for the Iceberg view.
bool iceberg_enabled(const Metadata& metadata);

// Why a table with this metadata cannot have the view ("" when it can): no column mapping in
// id mode, deletion vectors on, a column of a type Iceberg has no identity partition for...
std::string iceberg_unfit_reason(const Metadata& metadata);

// Writes the view of `snapshot` (a version of a table with the property). Throws Error on a
// table it cannot describe or on an I/O failure; what it wrote before is then left for the next
// write to replace.
void write_iceberg_metadata(const Snapshot& snapshot);

// The Delta version the newest view describes (version-hint.text's N - 1); nullopt when the table
// has none.
std::optional<int64_t> iceberg_metadata_version(const Table& table);

// Writes the view of the table's newest version when the table asks for one and the newest view
// is older (a crash after a commit, before its view). True when it wrote.
bool catch_up_iceberg_metadata(const Table& table);

}  // namespace lakestream::delta
