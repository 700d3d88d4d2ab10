#include "sql/freed_memory.h"

#include <string>

#include "util/error.h"

// DuckDB's jemalloc control (duckdb_library.cc loads it), as jemalloc's mallctl.
extern "C" int duckdb_je_mallctl(const char* name, void* oldp, size_t* oldlenp, void* newp, size_t newlen);

namespace lakestream::sql {

void keep_freed_memory_for(std::chrono::milliseconds delay) {
  try {
    ssize_t ms = static_cast<ssize_t>(delay.count());
    unsigned arenas = 0;
    size_t size = sizeof arenas;
    if (duckdb_je_mallctl("arenas.narenas", &arenas, &size, nullptr, 0) != 0) arenas = 0;
    // Freed pages are first dirty (still the process's), then muzzy (lazily given back): both wait.
    for (const char* setting : {"dirty_decay_ms", "muzzy_decay_ms"}) {
      // The default of arenas made from now on: DuckDB's threads take theirs lazily.
      duckdb_je_mallctl((std::string("arenas.") + setting).c_str(), nullptr, nullptr, &ms, sizeof ms);
      // Each arena there is (one not yet made refuses, and takes the default when it is).
      for (unsigned i = 0; i < arenas; i++)
        duckdb_je_mallctl(("arena." + std::to_string(i) + "." + setting).c_str(), nullptr, nullptr, &ms, sizeof ms);
    }
  } catch (const Error&) {
    // A DuckDB without its own allocator has no such control: its default stays. (A library that
    // cannot be loaded at all is told by the first statement, with what to do.)
  }
}

}  // namespace lakestream::sql
