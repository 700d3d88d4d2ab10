// Compaction while the streams run: after an ingest or latest stream commits batches, the small
// files of each table it writes are merged when due (table/compaction.h's size tiers), on the stream's own thread
// between two of its batches, so that it never races the stream for the table's log. A stream
// writing a small batch every second thus leaves a bounded number of files, not 86,400 a day.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream {

// What a continuous run remembers per table between compaction checks.
struct CompactionClock {
  int64_t batches_since_check = 0;
  std::chrono::steady_clock::time_point checked_at{};
};

// Compacts the tables `stream` writes if due, after it committed `batches` batches. A plain run
// (`clocks` null) checks each table once; a continuous run checks a table once enough batches
// for a tier to fill went in, or a minute after the last check. A table line says what was
// merged (to `out`, unless null); a failure (another writer kept rewriting the files) is told and never fails the
// stream: the next check tries again.
void compact_written_tables(const Pipeline& pipeline, const Stream& stream, sql::Connection& con, int64_t batches,
                            std::map<std::string, CompactionClock>* clocks, bool service_log, std::ostream* out);

}  // namespace lakestream
