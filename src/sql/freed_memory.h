// How long DuckDB's allocator keeps the memory a statement freed before it gives it back to the
// system. Its default (jemalloc's decay, 1 s in DuckDB's build) suits a process that runs a
// query now and then. A service runs a batch of a dozen statements every few hundred
// milliseconds: pages given back between two batches came back as page faults, each zeroed by
// the kernel, in the next (about 900 a batch in silver at 1,000 events/s). Kept 10 s, the next
// batches reuse them: silver's batches took 14% less CPU (docs/performance.md). The memory kept
// is what the last seconds' batches used at their peak, so the process's size stays flat.
#pragma once

#include <chrono>

namespace lakestream::sql {

// Frees go back to the system only after `delay` unused, in DuckDB's arenas now and later made.
// Loads DuckDB's library. A DuckDB built without its own allocator: nothing to set, nothing done.
void keep_freed_memory_for(std::chrono::milliseconds delay);

}  // namespace lakestream::sql
