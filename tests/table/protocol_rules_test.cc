// What PROTOCOL.md asks of the tables lakestream writes, read back from the raw log and Parquet
// (not through lakestream's own reader): timestamp types and their feature, the feature gate,
// writer obligations (append-only, invariants, CHECK constraints), metadata kept, partition value
// and path forms, vacuum retention, and the small fields Spark's readers expect.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/error_of.h"
#include "support/test_support.h"
#include "table/compaction.h"
#include "table/delta_types.h"
#include "table/log_files.h"
#include "table/path_encoding.h"
#include "table/schema_evolution.h"
#include "table/vacuum.h"
#include "table_fixtures.h"
#include "util/files.h"

namespace lakestream::delta {
namespace {

using fixtures::write_ids;
using nlohmann::json;
using testing::error_of;
using testing::write_text;

// The action of `kind` in commit `version`, as the file holds it (null when absent).
json raw_action(const std::string& table, int64_t version, const std::string& kind) {
  std::istringstream lines(read_file(commit_file_path(table, version)));
  std::string line;
  while (std::getline(lines, line)) {
    json action = json::parse(line);
    if (action.contains(kind)) return action[kind];
  }
  return nullptr;
}

// A table another writer (Spark) created: version 0 holds exactly these protocol and metaData lines.
void other_writer_creates(const std::string& table, const json& protocol, const json& metadata) {
  make_dirs(log_dir(table));
  write_text(commit_file_path(table, 0), json{{"protocol", protocol}}.dump() + "\n" + json{{"metaData", metadata}}.dump() + "\n");
}

json n_metadata(const json& n_field_metadata, const json& configuration = json::object()) {
  json schema = {{"type", "struct"},
                 {"fields", {{{"name", "n"}, {"type", "long"}, {"nullable", true}, {"metadata", n_field_metadata}}}}};
  return {{"id", "00000000-0000-0000-0000-000000000001"},
          {"format", {{"provider", "parquet"}, {"options", json::object()}}},
          {"schemaString", schema.dump()},
          {"partitionColumns", json::array()},
          {"configuration", configuration},
          {"createdTime", 1}};
}

AddFile write_n(sql::Connection& con, const std::string& table, const std::string& values) {
  return write_data_file(con, table, Metadata{}, "SELECT unnest([" + values + "]) AS n", {{"n", "long"}});
}

// Appends a file of `values` to the table in a commit of its own; returns the file.
AddFile append_n(sql::Connection& con, const std::string& table, const std::string& values) {
  Commit append(load_snapshot(table));
  AddFile added = write_n(con, table, values);
  append.add(added);
  append.publish();
  return added;
}

class ProtocolRules : public fixtures::TableTest {};

// 1. A column DuckDB types as plain TIMESTAMP is written as Delta's timestamp (a UTC instant),
// so the table stays (1, 2) and every reader opens it.
TEST_F(ProtocolRules, PlainTimestampColumnsAreWrittenAsUtcTimestamps) {
  for (const char* type : {"TIMESTAMP", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP_S"})
    EXPECT_EQ(delta_type_of_duckdb(type, "a column"), "timestamp") << type;
  std::string select = "SELECT TIMESTAMP '2026-10-01 09:00:00' AS wall, epoch_ms(1790000000000) AS from_ms";
  std::vector<Column> columns;
  sql::Rows described = con.query("DESCRIBE " + select);
  for (size_t r = 0; r < described.size(); r++)
    columns.push_back({*described.rows[r][0], delta_type_of_duckdb(*described.rows[r][1], "a column")});
  Commit commit(load_snapshot(table));
  Metadata metadata;
  metadata.schema = columns;
  commit.set_metadata(metadata);
  AddFile file = write_data_file(con, table, Metadata{}, select, columns);
  commit.add(file);
  commit.publish();

  EXPECT_EQ(raw_action(table, 0, "protocol").dump(), R"({"minReaderVersion":1,"minWriterVersion":2})");
  json schema = json::parse(raw_action(table, 0, "metaData")["schemaString"].get<std::string>());
  EXPECT_EQ(schema["fields"][0]["type"], "timestamp");
  EXPECT_EQ(schema["fields"][1]["type"], "timestamp");
  // The Parquet column is an instant adjusted to UTC, holding the wall clock read as UTC.
  std::string parquet = sql::quote_literal(table + "/" + file.path);
  EXPECT_EQ(con.scalar("SELECT string_agg(logical_type, '|') FROM parquet_schema(" + parquet + ") WHERE name = 'wall'"),
            "TimestampType(isAdjustedToUTC=1, unit=TimeUnit(MILLIS=<null>, MICROS=MicroSeconds(), NANOS=<null>))");
  EXPECT_EQ(con.scalar("SELECT epoch(wall)::BIGINT FROM read_parquet(" + parquet + ")"), "1790845200");
}

// A schema that does hold timestamp_ntz gets the feature the spec requires for it.
TEST_F(ProtocolRules, TimestampNtzComesWithItsTableFeature) {
  Commit commit(load_snapshot(table));
  Metadata metadata;
  metadata.schema = {{"id", "long"}, {"at", json{{"type", "array"}, {"elementType", "timestamp_ntz"}, {"containsNull", true}}}};
  commit.set_metadata(metadata);
  commit.publish();
  EXPECT_EQ(raw_action(table, 0, "protocol").dump(),
            R"({"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":["timestampNtz"],)"
            R"("writerFeatures":["appendOnly","invariants","timestampNtz"]})");

  // A (1, 2) table holding timestamp_ntz without the feature (as lakestream wrote before) is
  // upgraded by its next commit.
  std::string old = dir / "old";
  other_writer_creates(old, {{"minReaderVersion", 1}, {"minWriterVersion", 2}},
                       n_metadata(json::object()) /* then its schema is replaced below */);
  json meta = n_metadata(json::object());
  meta["schemaString"] = R"({"type":"struct","fields":[{"name":"t","type":"timestamp_ntz","nullable":true,"metadata":{}}]})";
  write_text(commit_file_path(old, 0), json{{"protocol", {{"minReaderVersion", 1}, {"minWriterVersion", 2}}}}.dump() +
                                           "\n" + json{{"metaData", meta}}.dump() + "\n");
  Commit next(load_snapshot(old));
  next.set_txn("s", 0);
  next.publish();
  EXPECT_EQ(raw_action(old, 1, "protocol")["readerFeatures"], json::array({"timestampNtz"}));
  EXPECT_EQ(load_snapshot(old).min_writer_version, 7);
}

// 2. The gate: features lakestream does not implement are refused, for reading and writing.
TEST_F(ProtocolRules, TablesWithFeaturesLakestreamDoesNotImplementAreRefused) {
  other_writer_creates(table, {{"minReaderVersion", 3}, {"minWriterVersion", 7},
                               {"readerFeatures", {"variantType"}}, {"writerFeatures", {"variantType"}}},
                       n_metadata(json::object()));
  std::string message = error_of([&] { load_snapshot(table); });
  EXPECT_NE(message.find("variantType, which lakestream does not implement"), std::string::npos) << message;

  std::string unknown_mode = dir / "unknown_mode";
  other_writer_creates(unknown_mode, {{"minReaderVersion", 2}, {"minWriterVersion", 5}},
                       n_metadata(json::object(), {{"delta.columnMapping.mode", "position"}}));
  message = error_of([&] { load_snapshot(unknown_mode); });
  EXPECT_NE(message.find("delta.columnMapping.mode = position"), std::string::npos) << message;

  // Generated and identity columns are refused once the table uses them (writer 4 and 6, or the
  // features listed under writer 7); while it does not, they ask nothing of a writer, and the
  // table is written (the next test).
  auto refused = [&](const std::string& name, const json& protocol, const json& metadata, const std::string& why) {
    std::string path = dir / name;
    other_writer_creates(path, protocol, metadata);
    EXPECT_EQ(load_snapshot(path).version, 0);  // readable
    Commit commit(load_snapshot(path));
    commit.add(write_n(con, path, "1"));
    std::string error = error_of([&] { commit.publish(); });
    EXPECT_NE(error.find(why), std::string::npos) << error;
    EXPECT_EQ(latest_version(path), 0) << name;
  };
  const json writer4 = {{"minReaderVersion", 1}, {"minWriterVersion", 4}};
  // The change data feed on: an append needs no change data and is written; a commit that takes
  // rows out without writing them is refused with nothing written (tests/check/change_feed_test.cc
  // writes them).
  {
    std::string path = dir / "cdf";
    other_writer_creates(path, writer4, n_metadata(json::object(), {{"delta.enableChangeDataFeed", "true"}}));
    AddFile added = append_n(con, path, "1");
    Commit remove(load_snapshot(path));
    remove.remove(added);
    std::string error = error_of([&] { remove.publish(); });
    EXPECT_NE(error.find("has the change data feed on"), std::string::npos) << error;
    EXPECT_EQ(latest_version(path), 1);
  }
  refused("generated", writer4, n_metadata({{"delta.generationExpression", "1 + 1"}}),
          "writer feature generatedColumns: a column is generated");
  refused("identity",
          {{"minReaderVersion", 1}, {"minWriterVersion", 7}, {"writerFeatures", {"appendOnly", "identityColumns"}}},
          n_metadata({{"delta.identity.start", 1}, {"delta.identity.step", 1}, {"delta.identity.allowExplicitInsert", false}}),
          "writer feature identityColumns: a column is an identity column");
}

// Writer 4 to 6, and the same features under writer 7, while the table does not use them: a
// table Databricks made with them listed is written like any other.
TEST_F(ProtocolRules, UnusedChangeFeedGeneratedAndIdentityFeaturesAreWritten) {
  const std::vector<std::pair<std::string, json>> protocols = {
      {"writer4", {{"minReaderVersion", 1}, {"minWriterVersion", 4}}},
      {"writer6", {{"minReaderVersion", 2}, {"minWriterVersion", 6}}},
      {"writer7", {{"minReaderVersion", 1}, {"minWriterVersion", 7},
                   {"writerFeatures", {"appendOnly", "changeDataFeed", "generatedColumns", "identityColumns"}}}}};
  for (const auto& [name, protocol] : protocols) {
    std::string path = dir / name;
    other_writer_creates(path, protocol, n_metadata(json::object(), {{"delta.enableChangeDataFeed", "false"}}));
    Commit commit(load_snapshot(path));
    commit.add(write_n(con, path, "1, 2"));
    commit.publish();
    sql::Rows rows = con.query("SELECT n FROM (" + scan_sql(load_snapshot(path)) + ") ORDER BY n");
    ASSERT_EQ(rows.size(), 2u) << name;
    EXPECT_EQ(*rows.rows[1][0], "2");
  }
}

// 2. An append-only table never gets a remove with dataChange = true; compaction stays allowed.
TEST_F(ProtocolRules, AppendOnlyTablesLoseNoRows) {
  other_writer_creates(table, {{"minReaderVersion", 1}, {"minWriterVersion", 2}},
                       n_metadata(json::object(), {{"delta.appendOnly", "true"}}));
  AddFile a = append_n(con, table, "1");
  Commit upsert(load_snapshot(table));
  upsert.remove(a);
  upsert.add(write_n(con, table, "2"));
  upsert.set_operation("MERGE");
  std::string message = error_of([&] { upsert.publish(); });
  EXPECT_NE(message.find("is append-only (delta.appendOnly = true), and this MERGE would remove"), std::string::npos)
      << message;
  EXPECT_EQ(latest_version(table), 1);

  Commit second(load_snapshot(table));
  second.add(write_n(con, table, "2"));
  second.publish();
  CompactionResult compacted = compact_table(con, table, 1 << 20);
  EXPECT_EQ(compacted.version, 3);
  EXPECT_EQ(raw_action(table, 3, "remove")["dataChange"], false);
}

// 2. An invariant (writer 2) and a CHECK constraint (writer 3) abort a commit adding a row that
// breaks them; null breaks them too, as in Spark.
TEST_F(ProtocolRules, InvariantsAndCheckConstraintsAbortACommitThatBreaksThem) {
  other_writer_creates(table, {{"minReaderVersion", 1}, {"minWriterVersion", 2}},
                       n_metadata({{"delta.invariants", R"({"expression":{"expression":"n > 0"}})"}}));
  Commit bad(load_snapshot(table));
  bad.add(write_n(con, table, "3, -5"));
  std::string message = error_of([&] { bad.publish(); });
  EXPECT_NE(message.find("a row breaks the invariant of column n (n > 0)"), std::string::npos) << message;
  EXPECT_NE(message.find("{\"n\":-5}"), std::string::npos) << message;
  EXPECT_EQ(latest_version(table), 0);
  Commit null_row(load_snapshot(table));
  null_row.add(write_n(con, table, "NULL"));
  EXPECT_NE(error_of([&] { null_row.publish(); }).find("breaks the invariant"), std::string::npos);
  Commit good(load_snapshot(table));
  good.add(write_n(con, table, "3, 5"));
  EXPECT_EQ(good.publish(), 1);

  std::string checked = dir / "checked";
  other_writer_creates(checked, {{"minReaderVersion", 1}, {"minWriterVersion", 3}},
                       n_metadata(json::object(), {{"delta.constraints.small", "n < 100"}}));
  Commit big(load_snapshot(checked));
  big.add(write_n(con, checked, "1, 1000"));
  message = error_of([&] { big.publish(); });
  EXPECT_NE(message.find("a row breaks the CHECK constraint small (n < 100)"), std::string::npos) << message;
  // Spark SQL that DuckDB cannot evaluate is not taken as kept.
  std::string odd = dir / "odd";
  other_writer_creates(odd, {{"minReaderVersion", 1}, {"minWriterVersion", 3}},
                       n_metadata(json::object(), {{"delta.constraints.odd", "n <=> no_such_function(n)"}}));
  Commit any(load_snapshot(odd));
  any.add(write_n(con, odd, "1"));
  EXPECT_NE(error_of([&] { any.publish(); }).find("cannot evaluate with DuckDB"), std::string::npos);
}

// 3. name, description and column metadata survive a schema change and a checkpoint.
TEST_F(ProtocolRules, TableAndColumnMetadataSurviveSchemaChangesAndCheckpoints) {
  json meta = n_metadata({{"comment", "how many"}}, {{"delta.checkpointInterval", "2"}});
  meta["name"] = "counts";
  meta["description"] = "counted by another writer";
  other_writer_creates(table, {{"minReaderVersion", 1}, {"minWriterVersion", 2}}, meta);
  Snapshot read = load_snapshot(table);
  auto evolved = evolve_schema(read.metadata, {{"n", "long"}, {"m", "string"}}, {}, table);
  ASSERT_TRUE(evolved);
  Commit commit(read);
  commit.set_metadata(*evolved);
  commit.publish();
  Commit second(load_snapshot(table));
  second.set_txn("s", 7);
  second.publish();  // version 2: a checkpoint

  json evolved_meta = raw_action(table, 1, "metaData");
  EXPECT_EQ(evolved_meta["name"], "counts");
  EXPECT_EQ(evolved_meta["description"], "counted by another writer");
  json fields = json::parse(evolved_meta["schemaString"].get<std::string>())["fields"];
  EXPECT_EQ(fields[0]["metadata"], json({{"comment", "how many"}}));
  std::string checkpoint = sql::quote_literal(table + "/_delta_log/00000000000000000002.checkpoint.parquet");
  EXPECT_EQ(con.scalar("SELECT metaData.name || '|' || metaData.description || '|' || "
                       "json_extract_string(metaData.schemaString, '$.fields[0].metadata.comment') FROM read_parquet(" +
                       checkpoint + ") WHERE metaData IS NOT NULL"),
            "counts|counted by another writer|how many");
}

// 4 and 5. Timestamp partition values in ISO-8601 UTC; a partition column name that is not
// path-safe is escaped in the folder name like values are.
TEST_F(ProtocolRules, PartitionValuesAndNamesTakeThePathSafeForms) {
  Metadata metadata;
  metadata.schema = {{"id", "long"}, {"at", "timestamp"}, {"geo:region", "string"}};
  metadata.partition_columns = {"at", "geo:region"};
  Commit commit(load_snapshot(table));
  commit.set_metadata(metadata);
  for (auto& file : write_partitioned_files(con, table, Metadata{}, "SELECT 1 AS id, TIMESTAMPTZ '2026-10-01 09:00:00+00' AS at, "
                                                        "'eu' AS \"geo:region\"", metadata.schema, metadata.partition_columns))
    commit.add(file);
  commit.publish();
  json add = raw_action(table, 0, "add");
  EXPECT_EQ(add["partitionValues"]["at"], "2026-10-01T09:00:00.000000Z");
  std::string path = add["path"].get<std::string>();
  EXPECT_TRUE(path.starts_with("at=2026-10-01T09%253A00%253A00.000000Z/geo%253Aregion=eu/part-")) << path;
  EXPECT_TRUE(std::filesystem::exists(table + "/" + url_decode_path(path)));
  EXPECT_EQ(con.scalar("SELECT epoch(\"at\")::BIGINT || '/' || \"geo:region\" FROM (" + scan_sql(load_snapshot(table)) + ")"),
            "1790845200/eu");

  // The older form (no T, no zone: UTC) still reads as the same instant.
  std::string old = dir / "old";
  Metadata old_metadata = metadata;
  old_metadata.partition_columns = {"at"};
  Commit create(load_snapshot(old));
  create.set_metadata(old_metadata);
  AddFile file = write_data_file(con, old, Metadata{}, "SELECT 1 AS id, 'eu' AS \"geo:region\"", metadata.schema,
                                 {{"at", "2026-10-01 09:00:00.000000"}});
  create.add(file);
  create.publish();
  EXPECT_EQ(con.scalar("SELECT epoch(\"at\")::BIGINT FROM (" + scan_sql(load_snapshot(old)) + ")"), "1790845200");
}

// 6. Vacuum honours the table's retention properties and refuses a short one unless told.
TEST_F(ProtocolRules, VacuumHonoursTheTablesRetentionAndRefusesAShortOne) {
  constexpr int64_t kHour = 3600LL * 1000;
  Metadata metadata = fixtures::ids_metadata();
  metadata.configuration["delta.checkpointInterval"] = "2";
  Commit create(load_snapshot(table));
  create.set_metadata(metadata);
  AddFile first = write_ids(con, table, "1");
  create.add(first);
  create.publish();
  for (int v = 1; v <= 2; v++) {
    Commit next(load_snapshot(table));
    next.remove(v == 1 ? first : load_snapshot(table).files[0]);
    next.add(write_ids(con, table, std::to_string(v + 1)));
    next.publish();
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(table))
    if (entry.is_regular_file()) fixtures::age(entry.path().string(), 3 * 24 * kHour);

  std::string message = error_of([&] { plan_vacuum(table, 24 * kHour, std::nullopt); });
  EXPECT_NE(message.find("retention of 24 hours refused"), std::string::npos) << message;
  EXPECT_NE(message.find("--unsafe-retention"), std::string::npos) << message;
  // Unsafe: data files older than a day go; so do log files (the log retention shrinks too).
  VacuumPlan unsafe = plan_vacuum(table, 24 * kHour, std::nullopt, true);
  EXPECT_EQ(unsafe.data_files.size(), 2u);
  EXPECT_EQ(unsafe.log_files.size(), 2u);
  // Default retention: 7 days, nothing goes.
  EXPECT_TRUE(plan_vacuum(table, std::nullopt, std::nullopt).data_files.empty());

  // With the table's own properties (a day of files, 30 days of log by default) the same
  // retention is safe, and the log stays.
  Commit configure(load_snapshot(table));
  Metadata shorter = load_snapshot(table).metadata;
  shorter.configuration["delta.deletedFileRetentionDuration"] = "interval 1 days";
  configure.set_metadata(shorter);
  configure.publish();
  VacuumPlan plan = plan_vacuum(table, std::nullopt, std::nullopt);
  EXPECT_EQ(plan.data_files.size(), 2u);
  EXPECT_TRUE(plan.log_files.empty());
  shorter.configuration["delta.logRetentionDuration"] = "interval 2 days";
  Commit log_config(load_snapshot(table));
  log_config.set_metadata(shorter);
  log_config.publish();
  EXPECT_EQ(plan_vacuum(table, std::nullopt, std::nullopt).log_files.size(), 2u);
  shorter.configuration["delta.logRetentionDuration"] = "a month";
  Commit bad(load_snapshot(table));
  bad.set_metadata(shorter);
  bad.publish();
  EXPECT_NE(error_of([&] { plan_vacuum(table, std::nullopt, std::nullopt); }).find("is not an interval"),
            std::string::npos);
}

// 7. txn.lastUpdated as committed, operationParameters as strings, MERGE not a blind append,
// checkpoints in zstd.
TEST_F(ProtocolRules, CheckpointsKeepTxnTimesAndCommitInfoFollowsSpark) {
  Metadata metadata = fixtures::ids_metadata();
  metadata.configuration["delta.checkpointInterval"] = "2";
  Commit create(load_snapshot(table));
  create.set_metadata(metadata);
  create.add(write_ids(con, table, "1"));
  create.set_txn("stream-a", 0);
  create.publish();
  Commit merge(load_snapshot(table));
  merge.add(write_ids(con, table, "2"));
  merge.set_operation("MERGE");
  merge.set_commit_info({{"operationParameters", {{"targetSize", 100}, {"predicate", "id"}}}});
  merge.publish();
  json info = raw_action(table, 1, "commitInfo");
  EXPECT_EQ(info["isBlindAppend"], false);
  EXPECT_EQ(info["operationParameters"], json({{"targetSize", "100"}, {"predicate", "id"}}));
  ::usleep(5000);
  Commit third(load_snapshot(table));
  third.add(write_ids(con, table, "3"));
  third.publish();  // version 2: a checkpoint
  std::string checkpoint = sql::quote_literal(table + "/_delta_log/00000000000000000002.checkpoint.parquet");
  EXPECT_EQ(con.scalar("SELECT txn.lastUpdated FROM read_parquet(" + checkpoint + ") WHERE txn IS NOT NULL"),
            raw_action(table, 0, "txn")["lastUpdated"].dump());
  EXPECT_EQ(con.scalar("SELECT string_agg(DISTINCT compression, ',') FROM parquet_metadata(" + checkpoint + ")"), "ZSTD");
}

}  // namespace
}  // namespace lakestream::delta
