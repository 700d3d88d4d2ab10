// A window stream's state: one DuckDB database in its checkpoint, state.duckdb, with
//   meta                key -> value: watermark (after the last batch), watermark_used (the one
//                       that batch judged by), last_batch, source_version, source_max_batch_id
//   windows             the open windows' partial aggregates
//   dedup               the remembered dedup keys and their event time (with dedup only)
//   outbox              the output of the last batch whose state is committed, until its table
//                       has it
//   watermark_history   (source _batch_id, watermark): the watermark each source batch met
// Only this module creates, migrates, reads for others and deletes it; the window stream changes
// its rows, one transaction per batch (state, progress and outbox together).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/pipeline.h"
#include "sql/duckdb.h"

namespace lakestream {

class Checkpoint;

// The tables a new state starts with, given as queries over the stream's source (no rows).
struct WindowStateShape {
  std::string windows;        // SELECT of the windows table's columns
  std::string outbox_select;  // the outbox's columns, a select list over the windows table
  std::string dedup;          // SELECT of the dedup table's columns; empty without dedup
};

// The meta table, typed: what the stream's last committed batch left. Stored as key -> value rows
// (watermark, watermark_used, last_batch, source_version, source_max_batch_id); a key never set
// reads as the default here.
struct WindowStateMeta {
  int64_t watermark_us = 0;          // after the last batch
  int64_t watermark_used_us = 0;     // the one the last batch judged late rows and closed windows by
  int64_t last_batch = -1;           // the last batch whose state is committed
  int64_t source_version = -1;       // the last source version read
  int64_t source_max_batch_id = -1;  // the newest source _batch_id read
};

class WindowStateStore {
 public:
  // Attaches the state of `checkpoint`'s stream to `con` (as `alias()`), creating the file on
  // first use. Throws Error when the file is missing but batches were planned: starting from
  // empty state would count windows again. (On an object store that is how a stream starts whose
  // first batch never uploaded its state: nothing of it reached the table, it is run again.)
  WindowStateStore(sql::Connection& con, const Checkpoint& checkpoint, const std::string& stream);
  // Detaches it (its transactions are committed by then).
  ~WindowStateStore();
  WindowStateStore(const WindowStateStore&) = delete;
  WindowStateStore& operator=(const WindowStateStore&) = delete;

  // Creates the tables when the state is new, and those a newer version added when it is older.
  void create_tables(const WindowStateShape& shape);

  // The qualified name of one of the state's tables, for the stream's SQL.
  std::string table(const std::string& name) const { return std::string(alias()) + "." + name; }
  static const char* alias() { return "window_state"; }

  // The meta record, read once, then kept until forget_meta().
  const WindowStateMeta& meta() const;
  // The statements that store `meta`, for the batch's transaction.
  std::string set_meta_sql(const WindowStateMeta& meta) const;
  // After a transaction that ran set_meta_sql (committed or not): meta reads again.
  void forget_meta() { meta_.reset(); }
  // After a committed transaction that ran set_meta_sql(`stored`): meta is that, without a read
  // (every field is stored, so the read would give it back; a query a batch saved).
  void remember_meta(const WindowStateMeta& stored) { meta_ = stored; }

  // The state file's size on disk.
  int64_t size_bytes() const;

  // After batch `batch`'s transaction: when the checkpoint is on an object store, uploads the
  // state there as that batch's snapshot (checkpoint_mirror.h), before the batch's output goes to
  // its table. Nothing to do for a local checkpoint, whose state file is already the truth.
  void publish(Checkpoint& checkpoint, int64_t batch);

  // The state file of the checkpoint folder `checkpoint_dir`.
  static std::string path_in(const std::string& checkpoint_dir) { return checkpoint_dir + "/state.duckdb"; }
  // Deletes the state of the checkpoint folder `checkpoint_dir` (a definition change with nothing
  // committed: the state fits only the old definition).
  static void remove(const std::string& checkpoint_dir);

 private:
  sql::Connection& con_;
  std::string path_;
  mutable std::optional<WindowStateMeta> meta_;
};

// The meta record of the state file at `path`, opened read-only; nullopt when there is none.
// Throws Error when it cannot be read (a run holds it, or it is no state).
std::optional<WindowStateMeta> read_window_state_meta(const std::string& path);

// What a window stream's state says now, for check and status. Reads the state read-only;
// nullopt when the stream has not run yet. Throws Error when a run holds it.
struct WindowProgress {
  int64_t watermark_us = 0;
  int64_t last_batch = -1;
  int64_t open_windows = 0;
  int64_t dedup_keys = 0;
  int64_t source_max_batch_id = -1;  // the newest source _batch_id the stream has read
  // (source _batch_id, watermark): source batches up to that id (and after the previous entry's)
  // were judged late or not against that watermark.
  std::vector<std::pair<int64_t, int64_t>> watermark_history;
  // The columns the stream writes to its table (name, DuckDB type), from its outbox: what recount
  // creates the table with when every closed window so far was late and the stream wrote none.
  std::vector<std::pair<std::string, std::string>> output_columns;
};
std::optional<WindowProgress> read_window_progress(const Pipeline& pipeline, const Stream& stream);

}  // namespace lakestream
