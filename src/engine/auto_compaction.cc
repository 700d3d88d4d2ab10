#include "engine/auto_compaction.h"

#include "engine/background_compaction.h"
#include "sinks/lake_table.h"
#include "table/compaction.h"
#include "table/delta_table.h"
#include "util/error.h"
#include "util/log_time.h"
#include "util/plural.h"

namespace lakestream {

namespace {

constexpr std::chrono::seconds kCheckAtLeastEvery{60};

bool due_for_a_check(CompactionClock& clock, int64_t batches, int64_t min_files) {
  clock.batches_since_check += batches;
  auto now = std::chrono::steady_clock::now();
  if (clock.batches_since_check == 0) return false;
  if (clock.batches_since_check < min_files && now - clock.checked_at < kCheckAtLeastEvery) return false;
  clock.batches_since_check = 0;
  clock.checked_at = now;
  return true;
}

}  // namespace

bool keeps_seen_batches(const Pipeline& pipeline, const std::string& table) {
  const Stream* writer = pipeline.writer_of(table);
  return writer && writer->kind == StreamKind::Window;
}

std::vector<std::string> tables_due_for_compaction(const Pipeline& pipeline, const Stream& stream, int64_t batches,
                                                   std::map<std::string, CompactionClock>* clocks) {
  std::vector<std::string> due;
  if (!pipeline.compact || batches == 0) return due;
  for (const auto& table : stream.tables_written())
    if (!clocks || due_for_a_check((*clocks)[table], batches, pipeline.compact_min_files)) due.push_back(table);
  return due;
}

void compact_due_tables(const Pipeline& pipeline, const Stream& stream, sql::Connection& con, int64_t batches,
                        std::map<std::string, CompactionClock>* clocks, BackgroundCompaction* compaction,
                        bool service_log, std::ostream* out) {
  for (const auto& table : tables_due_for_compaction(pipeline, stream, batches, clocks)) {
    // An ingest stream, and a window stream in append mode, only append: their tables are merged
    // on the compaction thread, never in their way. A latest stream's MERGE (and a window
    // stream's update) rewrites its newest files, the very ones the small groups of the lowest
    // tiers hold: raced, one of the two would do its work again, so it merges those between its
    // own batches (well under a second) and hands the large ones (older files, seconds of work)
    // to the thread.
    const bool only_appends =
        stream.kind == StreamKind::Ingest || (stream.kind == StreamKind::Window && stream.output == OutputMode::Append);
    if (!compaction) {
      compact_table(pipeline, table, con, service_log, out);
    } else if (only_appends) {
      compaction->request(table);
    } else {
      compact_table(pipeline, table, con, service_log, out, delta::GroupsTaken::Small);
      compaction->request(table, delta::GroupsTaken::Large);
    }
  }
}

void compact_table(const Pipeline& pipeline, const std::string& table, sql::Connection& con, bool service_log,
                   std::ostream* out, delta::GroupsTaken taken) {
  delta::AutoCompaction settings{pipeline.target_file_bytes, pipeline.compact_min_files};
  std::string when = service_log ? log_time_now() + " " : "";
  try {
    // A table the stream has not created yet (a quarantine with no bad record so far) has
    // nothing to merge: not a failure to report.
    if (delta::latest_version(lake_table(pipeline, table)) < 0) return;
    delta::CompactionResult result =
        delta::compact_small_files(con, lake_table(pipeline, table), settings, taken, keeps_seen_batches(pipeline, table));
    if (result.version < 0 || !out) return;
    *out << when << table << ": compacted " << counted(result.files_removed, "small file", "small files") << " ("
         << counted(result.bytes_removed, "byte", "bytes") << ") into " << counted(result.files_added, "file", "files")
         << " (" << counted(result.bytes_added, "byte", "bytes") << ") at version " << result.version
         << "; streaming readers skip it (dataChange=false)\n" << std::flush;
  } catch (const Error& e) {
    if (out)
      *out << when << table << ": compaction failed, and the stream goes on; the next look tries again: " << e.what()
           << "\n" << std::flush;
  }
}

}  // namespace lakestream
