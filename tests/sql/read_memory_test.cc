// A database that reads new Parquet files again and again (a service's stage, whose database lives
// as long as the process) keeps no copy of what it read: DuckDB's external file cache, on by
// default, grew without bound in the soak.
#include <gtest/gtest.h>

#include <string>

#include "sql/duckdb.h"
#include "support/test_support.h"

namespace lakestream::sql {
namespace {

TEST(ReadMemory, ReadingParquetFilesKeepsNoCopyOfThem) {
  testing::TempDir dir;
  Database db;
  Connection con(db);
  for (int file = 0; file < 20; file++) {
    std::string path = dir / ("part-" + std::to_string(file) + ".parquet");
    con.exec("COPY (SELECT range AS id, md5(range::VARCHAR) AS text FROM range(" + std::to_string(file * 20000) + ", " +
             std::to_string((file + 1) * 20000) + ")) TO " + quote_literal(path) + " (FORMAT parquet)");
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM read_parquet(" + quote_literal(path) + ") WHERE text <> ''"), 20000);
  }
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM read_parquet(" + quote_literal(dir / "*.parquet") + ")"),
            400000);
  // Each file is about 1 MB: a cache would hold them all.
  EXPECT_EQ(con.scalar_int("SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'EXTERNAL_FILE_CACHE'"), 0);
}

}  // namespace
}  // namespace lakestream::sql
