// Rows held as DuckDB data chunks and read by SQL in place (sql::ChunkTable): every row, value
// and NULL comes back, from any connection of the database, over many chunks; a table that is
// gone cannot be read.
#include <gtest/gtest.h>

#include <string>

#include "sql/chunk_table.h"
#include "sql/duckdb.h"
#include "support/error_of.h"

namespace lakestream::sql {
namespace {

TEST(ChunkTable, SqlReadsEveryRowAndValueInOrder) {
  Database db;
  Connection con(db);
  Connection other(db);
  ChunkTable rows(con, {{"id", "BIGINT"}, {"name", "VARCHAR"}, {"amount", "DECIMAL(18,2)"}, {"part", "INTEGER"}});
  EXPECT_EQ(rows.storage_type(2), DUCKDB_TYPE_BIGINT);  // a decimal(18,2) is stored as its int64
  const int64_t n = 5000;  // more than two chunks of 2048
  for (int64_t i = 0; i < n; i++) {
    rows.set<int64_t>(0, i);
    // Short names live inside the vector slot, long ones in DuckDB's string heap.
    std::string name = i % 3 == 0 ? "n" + std::to_string(i) : "a longer name than twelve bytes " + std::to_string(i);
    if (i % 7 == 0) rows.set_null(1);
    else rows.set_text(1, name.data(), name.size());
    rows.set<int64_t>(2, i * 100 + 5);  // i.05
    rows.set<int32_t>(3, static_cast<int32_t>(i % 4));
    rows.end_row();
  }
  ASSERT_EQ(rows.rows(), static_cast<size_t>(n));
  for (Connection* c : {&con, &other}) {
    EXPECT_EQ(c->scalar("SELECT count(*) || '/' || count(name) || '/' || sum(amount) || '/' || sum(part) FROM " +
                        rows.scan_sql()),
              std::to_string(n) + "/" + std::to_string(n - (n + 6) / 7) + "/" + "12497750.00/7500");
  }
  EXPECT_EQ(con.scalar("SELECT name FROM " + rows.scan_sql() + " WHERE id = 3"), "n3");
  EXPECT_EQ(con.scalar("SELECT name FROM " + rows.scan_sql() + " WHERE id = 4"), "a longer name than twelve bytes 4");
  EXPECT_FALSE(con.scalar("SELECT name FROM " + rows.scan_sql() + " WHERE id = 14").has_value());
  // In the order the rows were ended.
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (SELECT id, row_number() OVER () - 1 AS position FROM " + rows.scan_sql() +
                           ") WHERE id <> position"),
            0);
  // Read twice, the same rows (a scan does not use the chunks up).
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM " + rows.scan_sql()), n);
}

TEST(ChunkTable, AnEmptyTableReadsAsNoRows) {
  Database db;
  Connection con(db);
  ChunkTable rows(con, {{"id", "BIGINT"}});
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM " + rows.scan_sql()), 0);
}

TEST(ChunkTable, AGoneTableIsAClearError) {
  Database db;
  Connection con(db);
  std::string scan;
  {
    ChunkTable rows(con, {{"id", "BIGINT"}});
    scan = rows.scan_sql();
  }
  std::string message = testing::error_of([&] { con.scalar_int("SELECT count(*) FROM " + scan); });
  EXPECT_NE(message.find("no such chunk table"), std::string::npos) << message;
}

TEST(ChunkTable, AnUnknownTypeIsRefused) {
  Database db;
  Connection con(db);
  std::string message = testing::error_of([&] { ChunkTable rows(con, {{"id", "NOT_A_TYPE"}}); });
  EXPECT_NE(message.find("cannot hold rows of these column types"), std::string::npos) << message;
}

}  // namespace
}  // namespace lakestream::sql
