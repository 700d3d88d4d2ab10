// Compaction while the streams run: after a stream commits batches, the small
// files of each table it writes are merged when due (table/compaction.h's size tiers). A plain run
// merges them on the stream's thread at its end; a continuous run hands them to its background
// compaction (engine/background_compaction.h), so that a stream never waits for a merge. A stream
// writing a small batch every second thus leaves a bounded number of files, not 86,400 a day.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "table/compaction.h"

namespace lakestream {

// What a continuous run remembers per table between compaction checks.
struct CompactionClock {
  int64_t batches_since_check = 0;
  std::chrono::steady_clock::time_point checked_at{};
};

// The tables `stream` writes that are due for a look after it committed `batches` batches. A plain
// run (`clocks` null) looks at each once; a continuous run looks at a table once enough batches for
// a tier to fill went in, or a minute after the last look.
std::vector<std::string> tables_due_for_compaction(const Pipeline& pipeline, const Stream& stream, int64_t batches,
                                                   std::map<std::string, CompactionClock>* clocks);

class BackgroundCompaction;

// True for a window table: its merged files keep which source batch each row had seen
// (table/seen_batches.h), and files without that tag are left as written.
bool keeps_seen_batches(const Pipeline& pipeline, const std::string& table);

// Merges the due tables `stream` writes after it committed `batches` batches (`clocks`: as above).
// Without a compaction thread (`compaction` null) all on this thread; with one, the tables of a
// stream that only appends go to the thread, and a stream that rewrites files (latest, window
// updates) merges its small groups here and hands the large ones to the thread (the .cc says why).
void compact_due_tables(const Pipeline& pipeline, const Stream& stream, sql::Connection& con, int64_t batches,
                        std::map<std::string, CompactionClock>* clocks, BackgroundCompaction* compaction,
                        bool service_log, std::ostream* out);

// Merges the small files of `table` if a tier is full. A line says what was merged (to `out`,
// unless null); a failure (another writer kept rewriting the files) is told and never thrown:
// the next look tries again.
void compact_table(const Pipeline& pipeline, const std::string& table, sql::Connection& con, bool service_log,
                   std::ostream* out, delta::GroupsTaken taken = delta::GroupsTaken::All);

}  // namespace lakestream
