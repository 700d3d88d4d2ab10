// Tables of generated shapes and data (random schemas, partition columns, NULLs, NaN, UUIDs,
// Python isoformat times, path-hostile strings), written through several commits, a schema
// change, a compaction and checkpoints, must pass the interop check (the validator written from
// PROTOCOL.md and two independent Parquet readers) and scan back to the rows that went in.
#include <gtest/gtest.h>

#include "generated_columns.h"
#include "support/other_readers.h"
#include "table/compaction.h"
#include "table/delta_log_json.h"
#include "table/delta_types.h"
#include "table/schema_evolution.h"
#include "table_fixtures.h"

namespace lakestream::delta {
namespace {

using nlohmann::json;
using fixtures::Kind;
using fixtures::kinds;
using fixtures::pick;
using fixtures::rows_sql;

class GeneratedTables : public fixtures::TableTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(GeneratedTables, PassTheInteropCheckAndScanBack) {
  std::mt19937 rng(GetParam());
  std::vector<Kind> all = kinds(rng);
  std::vector<Column> columns;
  std::vector<const Kind*> of;
  int n = std::uniform_int_distribution<int>(2, 7)(rng);
  for (int i = 0; i < n; i++) {
    const Kind& kind = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
    columns.push_back({"c" + std::to_string(i) + pick<std::string>(rng, {"", ":x", " y", "é"}), kind.type});
    of.push_back(&kind);
  }
  std::vector<std::string> partitions;
  for (size_t i = 0; i + 1 < columns.size(); i++)  // at least one data column stays
    if (of[i]->partitionable && rng() % 3 == 0) partitions.push_back(columns[i].name);
  Metadata metadata;
  metadata.schema = columns;
  metadata.partition_columns = partitions;
  metadata.configuration["delta.checkpointInterval"] = "3";
  SCOPED_TRACE(schema_string(columns) + " partitioned by " + json(partitions).dump());

  int64_t rows_in = 0;
  for (int commit_no = 0; commit_no < 5; commit_no++) {
    Snapshot snapshot = load_snapshot(table);
    Commit commit(snapshot);
    if (commit_no == 0) commit.set_metadata(metadata);
    if (commit_no == 3) {  // a schema change: a new column, null in the older rows
      const Kind& kind = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
      columns.push_back({"added", kind.type});
      of.push_back(&kind);
      commit.set_metadata(*evolve_schema(snapshot.metadata, columns, partitions, table));
    }
    int rows = std::uniform_int_distribution<int>(1, 6)(rng);
    for (auto& file : write_partitioned_files(con, table, Metadata{}, rows_sql(rng, columns, of, rows), columns, partitions))
      commit.add(file);
    commit.publish();
    rows_in += rows;
  }
  compact_table(con, table, 1 << 20);

  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + scan_sql(load_snapshot(table)) + ")"), rows_in);
  auto [status, report] = testing::run_other_readers(dir.path());
  EXPECT_EQ(status, 0) << report;
}

INSTANTIATE_TEST_SUITE_P(Seeds, GeneratedTables, ::testing::Range(1u, 13u));

}  // namespace
}  // namespace lakestream::delta
