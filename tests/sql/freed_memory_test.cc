// DuckDB's allocator keeps freed memory as long as a service asks (sql/freed_memory.h): the
// setting reaches jemalloc's arenas that exist and those made after, as DuckDB's library names them.
#include "sql/freed_memory.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "sql/duckdb.h"

extern "C" int duckdb_je_mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);

namespace lakestream::sql {
namespace {

ssize_t decay_ms(const std::string& name) {
  ssize_t ms = -2;
  size_t size = sizeof ms;
  EXPECT_EQ(duckdb_je_mallctl(name.c_str(), &ms, &size, nullptr, 0), 0) << name;
  return ms;
}

TEST(FreedMemory, IsKeptAsLongAsAskedInEveryArenaNowAndLater) {
  Database db;
  Connection con(db);
  EXPECT_EQ(con.scalar_int("SELECT count(DISTINCT range % 1000) FROM range(100000)"), 1000);
  keep_freed_memory_for(std::chrono::seconds(10));
  EXPECT_EQ(decay_ms("arenas.dirty_decay_ms"), 10000);
  EXPECT_EQ(decay_ms("arenas.muzzy_decay_ms"), 10000);
  EXPECT_EQ(decay_ms("arena.0.dirty_decay_ms"), 10000);  // made when DuckDB first allocated
  // A thread that allocates after it gets an arena made now, with the setting.
  std::thread([&] {
    Connection other(db);
    EXPECT_EQ(other.scalar_int("SELECT count(*) FROM range(50000) GROUP BY range % 7 ORDER BY 1 LIMIT 1"), 7142);
    unsigned arena = 0;
    size_t size = sizeof arena;
    ASSERT_EQ(duckdb_je_mallctl("thread.arena", &arena, &size, nullptr, 0), 0);
    EXPECT_EQ(decay_ms("arena." + std::to_string(arena) + ".dirty_decay_ms"), 10000);
  }).join();
}

}  // namespace
}  // namespace lakestream::sql
