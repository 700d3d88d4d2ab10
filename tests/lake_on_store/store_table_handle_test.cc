// A table handle carries the store settings it was made with (table/table.h): one process reads
// a table on one store and writes a table on another with other credentials, every read, write,
// commit and checkpoint going to the right store with the right settings, while the process's
// lake (configure_table_stores) points nowhere. A path alone still means the process's lake.
#include <set>

#include "lake_on_store/store_lake.h"
#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"
#include "table/table_files.h"
#include "util/error.h"

namespace lakestream::testing {
namespace {

const std::vector<delta::Column> kColumns = {{"id", "long", true, nlohmann::json::object()},
                                             {"name", "string", true, nlohmann::json::object()}};

delta::Metadata handle_metadata() {
  delta::Metadata metadata;
  metadata.schema = kColumns;
  return metadata;
}

// Commits the rows of `select_sql` to `table` (creating it on the first call), batch `batch` of
// app "copy"; returns the version.
int64_t append(sql::Connection& con, const delta::Table& table, const std::string& select_sql, int64_t batch) {
  delta::Snapshot read = delta::load_snapshot(table);
  delta::Commit commit(read);
  if (!read.exists()) commit.set_metadata(handle_metadata());
  delta::AddFile file = delta::write_data_file(con, read.table, commit.metadata_after(), select_sql, kColumns);
  if (!file.path.empty()) commit.add(file);
  commit.set_txn("copy", batch);
  return commit.publish();
}

// The table's rows as "id:name", read through its live files.
std::multiset<std::string> rows_of(sql::Connection& con, const delta::Table& table) {
  std::multiset<std::string> rows;
  delta::Snapshot snapshot = delta::load_snapshot(table);
  for (const auto& row : con.query("SELECT id::VARCHAR || ':' || name FROM (" + delta::scan_sql(snapshot) + ")").rows)
    rows.insert(*row[0]);
  return rows;
}

TEST(TableHandle, EachTableReachesItsOwnStoreWithItsOwnSettings) {
  StoreEmulator s3(Emulator::S3rver);
  StoreEmulator azure(Emulator::Azurite);
  TempDir cache_a, cache_b, lake_cache;
  // The process's lake is a store that is not there: a table named by its path alone must fail,
  // so that every success below is the handles' own settings at work.
  delta::configure_table_stores({{{"endpoint", "http://127.0.0.1:1"}, {"region", "us-east-1"},
                                  {"access_key_id", "nobody"}, {"secret_access_key", "nothing"},
                                  {"max_attempts", "1"}},
                                 lake_cache.path(), 1 << 20});
  const delta::Table source(s3.url("handles/source"), {s3.settings(), cache_a.path(), 1 << 20});
  const delta::Table target(azure.url("handles/target"), {azure.settings(), cache_b.path(), 1 << 20});

  sql::Database db;
  sql::Connection con(db);
  // 12 batches into the source on S3, each copied as it lands into the target on Azure Blob: the
  // copy reads one store and writes the other, and the 10th commit of each writes a checkpoint.
  std::multiset<std::string> expected;
  for (int64_t batch = 0; batch < 12; batch++) {
    std::string first = std::to_string(batch * 3);
    std::string select = "SELECT (" + first + " + i)::BIGINT AS id, 'n' || (" + first + " + i) AS name FROM range(3) t(i)";
    EXPECT_EQ(append(con, source, select, batch), batch);
    delta::Snapshot landed = delta::load_snapshot(source, batch);
    ASSERT_EQ(landed.files.size(), static_cast<size_t>(batch + 1));
    delta::Snapshot newest_only = landed;
    newest_only.files = {landed.files.back()};
    EXPECT_EQ(append(con, target, "SELECT id, name FROM (" + delta::scan_sql(newest_only) + ")", batch), batch);
    for (int i = 0; i < 3; i++) expected.insert(std::to_string(batch * 3 + i) + ":n" + std::to_string(batch * 3 + i));
  }

  EXPECT_EQ(rows_of(con, source), expected);
  EXPECT_EQ(rows_of(con, target), expected);
  // Each checkpoint went to its table's store, written with its settings.
  for (const delta::Table* table : {&source, &target}) {
    auto hint = delta::read_table_file(*table, "_delta_log/_last_checkpoint");
    ASSERT_TRUE(hint) << table->path();
    EXPECT_EQ(nlohmann::json::parse(*hint)["version"], 10) << table->path();
    EXPECT_EQ(delta::txn_version(*table, "copy"), 11);
    EXPECT_EQ(delta::latest_version(*table), 11);
  }
  // The stores hold what the handles wrote, and only there: nothing of the source on Azure.
  EXPECT_TRUE(delta::list_table_files(delta::Table(azure.url("handles/source"), {azure.settings(), cache_b.path(), 1 << 20}), "")
                  .empty());

  // A handle made again the same way shares the open store; other settings get another.
  EXPECT_EQ(delta::Table(s3.url("handles/source"), {s3.settings(), cache_a.path(), 1 << 20}).own_store(),
            source.own_store());
  EXPECT_NE(delta::Table(s3.url("handles/source"), {s3.settings(), cache_b.path(), 1 << 20}).own_store(),
            source.own_store());
  // A snapshot keeps the handle it was read through, and so does a commit built on it.
  EXPECT_EQ(delta::load_snapshot(target).table.own_store(), target.own_store());

  // The same URLs by path alone are tables of the process's lake, which cannot reach them.
  EXPECT_THROW(delta::load_snapshot(s3.url("handles/source")), Error);
  EXPECT_THROW(delta::latest_version(std::string(azure.url("handles/target"))), Error);
  // With the lake pointed at the S3 emulator, the path alone reads the same table.
  delta::configure_table_stores({s3.settings(), lake_cache.path(), 1 << 20});
  EXPECT_EQ(rows_of(con, s3.url("handles/source")), expected);
}

}  // namespace
}  // namespace lakestream::testing
