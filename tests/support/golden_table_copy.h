// A copy of one of delta-kernel-rs's golden tables (tests/data/golden, written by Spark) to write
// to, with Spark's rows to compare the table with after each write.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "sql/duckdb.h"
#include "support/test_support.h"
#include "table/delta_table.h"
#include "table/parquet_file.h"

namespace lakestream::testing {

class GoldenTableCopy {
 protected:
  // Copies the golden case `name`: its table to `table`, Spark's rows as the relation `expected`.
  void copy_case(const std::string& name) {
    std::string from = test_data_dir() + "/golden/" + name;
    std::filesystem::copy(from + "/delta", table, std::filesystem::copy_options::recursive);
    expected = "read_parquet(" + sql::quote_literal(from + "/expected/*.parquet") + ")";
  }

  // The table's rows (its schema's columns) are the rows of the query `rows`, as a multiset.
  void expect_rows(const std::string& rows) {
    delta::Snapshot snapshot = delta::load_snapshot(table);
    std::string columns;
    for (const auto& column : snapshot.metadata.schema) columns += (columns.empty() ? "" : ", ") + sql::quote_ident(column.name);
    std::string actual = "SELECT " + columns + " FROM (" + delta::scan_sql(snapshot) + ")";
    std::string wanted = "SELECT " + columns + " FROM (" + rows + ")";
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + actual + ")"), con.scalar_int("SELECT count(*) FROM (" + wanted + ")"));
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + actual + " EXCEPT ALL " + wanted + ")"), 0) << "rows too many";
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (" + wanted + " EXCEPT ALL " + actual + ")"), 0) << "rows missing";
  }

  TempDir dir;
  std::string table = dir / "table";
  std::string expected;
  sql::Database db;
  sql::Connection con{db};
};

}  // namespace lakestream::testing
