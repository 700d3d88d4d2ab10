// A command that reads a whole lake (check) runs its DuckDB within a memory budget and spills
// the rest to a folder of its own, removed after: DuckDB's default took 80% of RAM.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "sql/memory_budget.h"

namespace lakestream::sql {
namespace {

TEST(MemoryBudget, AQueryLargerThanTheBudgetSpillsIntoItsFolderWhichGoesAfter) {
  std::string folder;
  {
    MemoryBudget budget(256 << 20);
    folder = budget.spill_folder();
    ASSERT_TRUE(std::filesystem::is_directory(folder));
    Database db;
    Connection con(db);
    budget.apply(con);
    EXPECT_EQ(con.scalar("SELECT current_setting('temp_directory')").value_or(""), folder);
    // About 800 MB of rows to group and to sort, three times the budget: done only by spilling.
    std::string big = "(SELECT range AS id, md5(range::VARCHAR) || md5((range + 1)::VARCHAR) AS text FROM range(8000000))";
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (SELECT text FROM " + big + " GROUP BY text)"), 8000000);
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (SELECT id, text FROM " + big + " ORDER BY text)"), 8000000);
    // A query's spill files go when it ends; a table held past the budget keeps its blocks there.
    con.exec("CREATE TABLE held AS SELECT * FROM " + big);
    EXPECT_GT(con.scalar_int("SELECT count(*) FROM duckdb_temporary_files() WHERE starts_with(path, " +
                             quote_literal(folder) + ")"),
              0);
    EXPECT_LE(con.scalar_int("SELECT sum(memory_usage_bytes) FROM duckdb_memory()"), 256 << 20);
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
}

TEST(MemoryBudget, TheDefaultIsAQuarterOfRamAndAtLeastAGibibyte) {
  int64_t ram = static_cast<int64_t>(::sysconf(_SC_PHYS_PAGES)) * ::sysconf(_SC_PAGE_SIZE);
  EXPECT_EQ(default_memory_budget(), std::max<int64_t>(ram / 4, int64_t{1} << 30));
  EXPECT_EQ(MemoryBudget(0).bytes(), default_memory_budget());  // what --memory-limit left out gives
}

}  // namespace
}  // namespace lakestream::sql
