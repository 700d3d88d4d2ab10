// What the table tests share: a small orders schema, and creating a table with rows in one call.
#pragma once

#include <gtest/gtest.h>
#include <sys/time.h>

#include <string>
#include <vector>

#include "support/test_support.h"

#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"

namespace lakestream::delta::fixtures {

// What most table tests start from: a fresh folder with the table's path in it, and DuckDB.
class TableTest : public ::testing::Test {
 protected:
  testing::TempDir dir;
  std::string table = dir / "table";
  sql::Database db;
  sql::Connection con{db};
};

inline std::vector<Column> orders_schema() {
  return {{"order_id", "long"}, {"qty", "integer"}, {"price", "double"}, {"paid", "boolean"},
          {"note", "string"},   {"amount", "decimal(18,2)"}, {"ts", "timestamp"}};
}

inline Metadata orders_metadata() {
  Metadata metadata;
  metadata.schema = orders_schema();
  return metadata;
}

// A SELECT of `values` rows ("(1, 2, ...), (...)") with the orders columns' names.
inline std::string orders_rows(const std::string& values) {
  return "SELECT * FROM (VALUES " + values + ") AS t(order_id, qty, price, paid, note, amount, ts)";
}

// A one-column (id) table, for tests about the log rather than the data.
inline Metadata ids_metadata() {
  Metadata metadata;
  metadata.schema = {{"id", "long"}};
  return metadata;
}

inline AddFile write_ids(sql::Connection& con, const std::string& table, const std::string& ids_csv) {
  return write_data_file(con, table, Metadata{}, "SELECT unnest([" + ids_csv + "]) AS id", ids_metadata().schema);
}

// Creates the ids table at version 0 holding `ids_csv`; returns the file it wrote.
inline AddFile create_ids_table(sql::Connection& con, const std::string& table, const std::string& ids_csv) {
  Commit commit(load_snapshot(table));
  commit.set_metadata(ids_metadata());
  AddFile file = write_ids(con, table, ids_csv);
  commit.add(file);
  commit.publish();
  return file;
}

// Makes a file look `age_ms` old, as if written then (for retention tests).
inline void age(const std::string& path, int64_t age_ms) {
  struct timeval now;
  ::gettimeofday(&now, nullptr);
  int64_t then_ms = static_cast<int64_t>(now.tv_sec) * 1000 - age_ms;
  struct timeval times[2];
  times[0].tv_sec = times[1].tv_sec = then_ms / 1000;
  times[0].tv_usec = times[1].tv_usec = 0;
  ASSERT_EQ(::utimes(path.c_str(), times), 0) << path;
}

// The ids a scan of the snapshot returns, sorted, as "1,2,3".
inline std::string scanned_ids(sql::Connection& con, const Snapshot& snapshot) {
  auto v = con.scalar("SELECT string_agg(CAST(id AS VARCHAR), ',' ORDER BY id) FROM (" + scan_sql(snapshot) + ")");
  return v ? *v : "";
}

}  // namespace lakestream::delta::fixtures
