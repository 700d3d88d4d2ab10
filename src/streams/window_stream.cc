#include "streams/window_stream.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <regex>

#include "checkpoint/checkpoint.h"
#include "checkpoint/window_state_store.h"
#include "sinks/lake_table.h"
#include "sinks/table_sink.h"
#include "sinks/upsert.h"
#include "source/table_source.h"
#include "sql/row_per_group.h"
#include "streams/table_stream_driver.h"
#include "streams/window_aggregates.h"
#include "table/commit_record.h"
#include "table/delta_log_json.h"  // schema_string
#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "table/seen_batches.h"
#include "pipeline/change_columns.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"

namespace lakestream {

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

// The state attached and what is known of the source's shape: opened by a run's first batch, and
// in a continuous run kept across its cycles (attaching the state and detaching it, which writes
// it whole, cost a third of a batch's CPU), unless the checkpoint is on an object store, whose
// working copy each cycle makes again, or the source's schema changed.
struct OpenWindowState : KeptStreamState {
  std::vector<delta::Column> source_columns;
  std::optional<WindowAggregates> aggregates;
  std::optional<WindowStateStore> state;
  // Counts known since the last batch, so that the next one need not ask DuckDB again (each
  // statement costs about a millisecond, whatever it counts): the rows the state holds (open
  // windows and remembered keys) and the outbox's (unknown: counted).
  std::optional<int64_t> state_rows, outbox_rows;
  // A service's idle mark (checkpoint/idle_mark.h), kept here instead of in the checkpoint: the
  // source version through which every batch is committed and the outbox flushed, as of the last
  // cycle. Writing, syncing and removing idle.json again at every batch cost more than the mark
  // saves a service; the file is for the next plain run, and a service's next start opens the
  // state once to find it has nothing to do.
  std::optional<int64_t> idle_through;
};

class WindowRun : TableBatchKind {
 public:
  explicit WindowRun(StreamContext& ctx)
      : ctx_(ctx),
        s_(ctx.stream),
        checkpoint_(ctx.pipeline, ctx.stream),
        source_table_(lake_table(ctx.pipeline, ctx.stream.from)),
        table_(lake_table(ctx.pipeline, ctx.stream.table)) {
    report_.stream = s_.name;
    report_.stream_id = checkpoint_.id();
    report_.source = "DeltaSource[" + s_.from + "]";
    report_.table = s_.table;
  }

  StreamReport run() {
    auto started = std::chrono::steady_clock::now();
    if (delta::latest_version(source_table_) < 0) return report_;  // nothing upstream yet
    if (checkpoint_.definition_changed()) checkpoint_.check_definition(has_committed_work());
    // Nothing pending and nothing new since the last cycle or run: done, without opening the state.
    if (OpenWindowState* kept = kept_state(); kept && kept->idle_through) {
      if (delta::latest_version(source_table_) <= *kept->idle_through) return report_;
      kept->idle_through.reset();
    } else {
      std::optional<PlannedBatch> planned = checkpoint_.last_planned();
      auto idle = checkpoint_.idle_mark();
      if (idle && planned && idle->batch == planned->id && delta::latest_version(source_table_) <= idle->to)
        return report_;
      checkpoint_.clear_idle_mark();
    }
    // In continuous mode the stages share the cores, and DuckDB's worker threads spin for tasks
    // between gold's many short statements (a third of the CPU went to its scheduler on two busy
    // cores): one thread. A plain run's batch has the machine: all of them (see
    // docs/performance.md, gold within 2x of the batch limit).
    // (The stage's DuckDB is its own: the setting is kept from one cycle to the next.)
    if (ctx_.continuous) ctx_.con.keep_setting("threads", "1");
    open_state();
    flush_outbox(true);
    drive_table_batches(source_table_, checkpoint_, s_.max_files_per_trigger, meta().last_batch, *this);
    // Every planned batch is committed and the outbox flushed: the next cycle or run may skip the state.
    if (auto newest = checkpoint_.last_planned()) {
      if (OpenWindowState* kept = kept_state()) kept->idle_through = newest->table().to;
      else checkpoint_.set_idle_mark({newest->id, newest->table().to});
    }
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report_;
  }

 private:
  std::string st(const std::string& table) const { return open_->state->table(table); }
  const WindowStateMeta& meta() { return open_->state->meta(); }
  // The state a service keeps across its cycles (open_state), if there is one yet.
  OpenWindowState* kept_state() const {
    if (!ctx_.kept || checkpoint_.on_object_store()) return nullptr;
    return dynamic_cast<OpenWindowState*>(ctx_.kept->state.get());
  }

  // Whether a batch's state or output was ever committed (a state that cannot be read counts,
  // to be safe).
  bool has_committed_work() {
    if (checkpoint_.committed_batch({table_}) >= 0) return true;
    try {
      auto progress = read_window_progress(ctx_.pipeline, s_);
      return progress && progress->last_batch >= 0;
    } catch (const Error&) {
      return true;
    }
  }

  // Attaches the state and creates its tables on first use; the shapes come from the source
  // table's schema, so that state columns have the source's types.
  void open_state() {
    CpuScope cpu_scope("window.open_state");
    auto& con = ctx_.con;
    // The source's columns as the stream reads them, from an empty read of its newest version.
    int64_t newest = delta::latest_version(source_table_);
    TableChanges none = read_table_changes(source_table_, newest + 1, newest, s_.read);
    bool keep = ctx_.kept && !checkpoint_.on_object_store();
    if (keep) {
      auto* kept = dynamic_cast<OpenWindowState*>(ctx_.kept->state.get());
      if (kept && kept->state && delta::schema_string(kept->source_columns) == delta::schema_string(none.columns)) {
        open_ = kept;
        return;
      }
      ctx_.kept->state.reset();  // detached before it is attached again
      ctx_.kept->state = std::make_unique<OpenWindowState>();
      open_ = static_cast<OpenWindowState*>(ctx_.kept->state.get());
    } else {
      open_ = &own_;
    }
    open_->state.emplace(con, checkpoint_, s_.name);
    open_->source_columns = none.columns;
    std::optional<WindowAggregates>& aggregates = open_->aggregates;
    std::string shape = changes_scan_sql(none);  // the source's columns and types, no rows
    aggregates.emplace(con, s_, shape);
    WindowStateShape state_shape;
    state_shape.windows = "SELECT " + aggregates->window_key_select() + ", " + aggregates->partial_select() +
                          " FROM (" + shape + ") GROUP BY ALL LIMIT 0";
    state_shape.outbox_select = aggregates->final_select();
    if (!s_.dedup.empty()) {
      std::string dedup_cols;
      for (const auto& d : s_.dedup) dedup_cols += q(d) + ", ";
      state_shape.dedup = "SELECT " + dedup_cols + q(s_.event_time) + " AS event_time FROM (" + shape + ") LIMIT 0";
    }
    open_->state->create_tables(state_shape);
  }

  std::vector<delta::Column> gold_columns() {
    sql::Rows rows = ctx_.con.query("DESCRIBE " + st("outbox"));
    std::vector<delta::Column> columns;
    for (size_t i = 1; i < rows.size(); i++)  // skip batch_id
      columns.push_back({rows.text(i, "column_name"), delta::delta_type_of_duckdb(rows.text(i, "column_type"), "a window aggregate"), true});
    return columns;
  }

  // Commits the outbox (the output of the last batch whose state is committed) to the table,
  // once, then clears it. `replay`: the output may be in the table already (a run died after
  // committing it, before clearing the outbox).
  void flush_outbox(bool replay) {
  CpuScope cpu_scope("window.flush_outbox");
    auto& con = ctx_.con;
    int64_t batch_id = meta().last_batch;
    int64_t rows = open_->outbox_rows ? *open_->outbox_rows : con.scalar_int("SELECT count(*) FROM " + st("outbox"));
    if (rows == 0) return;
    auto columns = gold_columns();
    std::string column_list;
    for (const auto& c : columns) column_list += (column_list.empty() ? "" : ", ") + q(c.name);
    std::string select = "SELECT " + column_list + " FROM " + st("outbox");
    CommitRecord record;
    record.stream = s_.name;
    record.batch_id = batch_id;
    record.watermark_us = meta().watermark_us;
    record.source_version = meta().source_version;
    record.source_max_batch_id = meta().source_max_batch_id;
    SinkCommit sink;
    sink.table = table_;
    sink.schema = columns;
    sink.app_id = checkpoint_.id();
    sink.batch_id = batch_id;
    sink.record = record;
    sink.replay = replay;
    sink.properties = ctx_.pipeline.table_properties(s_);
    commit_once(sink, [&](delta::Commit& commit, const delta::Snapshot& snapshot) {
      if (s_.output == OutputMode::Append) {
        commit.add(delta::write_data_file(con, table_, commit.metadata_after(), select, columns));
        fault_point("after_data_files");
      } else {
        con.exec("CREATE OR REPLACE TEMP TABLE window_updates AS " + select);
        std::vector<std::string> key{s_.window_column};
        key.insert(key.end(), s_.group_by.begin(), s_.group_by.end());
        upsert_rows(con, table_, commit, snapshot, "window_updates", key, "false", columns);
      }
      // Every row of the new files had seen the same source batches: compaction keeps this per row.
      commit.tag_new_files(delta::kSeenBatchesTag,
                           delta::seen_batches_text({{0, meta().source_max_batch_id}}));
    });
    fault_point("after_sink_commit");
    con.exec("DELETE FROM " + st("outbox"));
    open_->outbox_rows = 0;
  }

  // SQL for the rows the state holds: open windows and remembered dedup keys.
  std::string state_rows_sql() {
    std::string rows = "(SELECT count(*) FROM " + st("windows") + ")";
    if (!s_.dedup.empty()) rows += " + (SELECT count(*) FROM " + st("dedup") + ")";
    return rows;
  }

  // Spark's trailing no-data batch: what the moved watermark closed is written in this run.
  bool wants_no_data_batch() override {
    int64_t watermark = meta().watermark_us;
    if (watermark <= meta().watermark_used_us) return false;
    std::string w = std::to_string(watermark);
    if (ctx_.con.scalar_int("SELECT count(*) FROM " + st("windows") + " WHERE epoch_us(ws) + " +
                            std::to_string(s_.window_us) + " <= " + w) > 0)
      return true;
    std::optional<std::string> forgotten = keys_to_forget(watermark);
    return forgotten && ctx_.con.scalar_int("SELECT count(*) FROM (SELECT 1 FROM " + st("dedup") + " WHERE " +
                                            *forgotten + " LIMIT 1)") > 0;
  }

  // The remembered dedup keys a watermark lets go (their first copy older than it by the delay),
  // as a condition; none without dedup. Said as a bound on event_time itself, so that DuckDB
  // skips the row groups (kept in event-time order, mostly) whose least event_time is past it
  // instead of reading every key remembered: an hour's keys at 1,000 a second took 25 CPU-ms a
  // batch to scan, the bound under 1.
  std::optional<std::string> keys_to_forget(int64_t watermark) const {
    int64_t through = 0;
    if (s_.dedup.empty() || __builtin_sub_overflow(watermark, s_.watermark_delay_us, &through)) return std::nullopt;
    return "event_time <= make_timestamp(" + std::to_string(through) + ")";
  }

  void run_batch(const PlannedBatch& planned, bool replay) override {
    CpuScope cpu_scope("window.run_batch");
    auto started = std::chrono::steady_clock::now();
    auto& con = ctx_.con;
    BatchReport batch;
    batch.batch_id = planned.id;
    batch.replayed = replay;
    batch.started_at_us = wall_clock_us();
    const TableInput& input = planned.table();
    bool no_data = input.no_data;
    int64_t from = input.from, to = input.to;
    // Versions read, inclusive; a batch without data read none: both are the last version read.
    batch.start_offset = no_data ? to : from;
    batch.end_offset = to;
    batch.latest_offset = delta::latest_version(source_table_);
    int64_t state_rows_before =
        open_->state_rows ? *open_->state_rows : ctx_.con.scalar_int("SELECT " + state_rows_sql());
    batch.description = no_data ? "no data (the watermark moved)"
                                : "versions " + std::to_string(from) + "-" + std::to_string(to) + " of " + s_.from;

    // The watermark that the previous batch ended with: late rows and closed windows are judged by it.
    int64_t watermark = meta().watermark_us;
    std::string w = std::to_string(watermark);
    int64_t new_watermark = watermark;
    const int64_t previous_source_max_batch_id = meta().source_max_batch_id;
    int64_t source_max_batch_id = previous_source_max_batch_id;
    std::string et = q(s_.event_time);
    std::optional<int64_t> oldest_input_ms;  // when the oldest source commit read was made
    int64_t kept_rows = 0;                   // rows past dedup: each a key the state now remembers

    if (!no_data) {
      TableChanges changes = read_table_changes(source_table_, from, to, s_.read);
      oldest_input_ms = changes.oldest_commit_ms;
      std::string source = "(" + changes_scan_sql(changes) + ") AS source";
      std::string filter = s_.filter.empty() ? std::string("true") : "(" + s_.filter + ")";
      // Late: with dedup, an event time at or before the watermark; without, a window that
      // ended at or before it (Spark's rules for each operator).
      std::string on_time = et + " IS NOT NULL AND " +
                            (s_.dedup.empty() ? open_->aggregates->window_start_us() + " + " + std::to_string(s_.window_us) + " > " + w
                                              : "epoch_us(" + et + ") > " + w);
      // Which source batch a row came in: the version of a change it read, else its _batch_id.
      const std::string batch_column = s_.read == SourceRead::Changes ? kCommitVersionColumn : "_batch_id";
      bool has_batch_id = delta::has_column(open_->source_columns, batch_column);

      // The batch's counters and event-time figures (over the filtered rows) in one pass over its
      // files, reading only the columns they need.
      std::string event_us = "epoch_us(" + et + ")";
      sql::Rows counts = con.query(
          "SELECT count(*) AS input_rows, count(*) FILTER (WHERE " + filter + ") AS filtered_rows, "
          "min(" + event_us + ") FILTER (WHERE " + filter + ") AS min_event, "
          "max(" + event_us + ") FILTER (WHERE " + filter + ") AS max_event, "
          "avg(" + event_us + ") FILTER (WHERE " + filter + ")::VARCHAR AS mean_event, "
          "count(*) FILTER (WHERE " + filter + " AND " + on_time + ") AS on_time_rows, " +
          (has_batch_id ? "max(" + q(batch_column) + ")" : std::string("NULL")) + " AS max_batch_id FROM " + source);
      auto count_of = [&](const char* column) { return std::stoll(counts.text(0, column)); };
      batch.input_rows = count_of("input_rows");
      int64_t on_time_rows = count_of("on_time_rows");
      batch.late_dropped = count_of("filtered_rows") - on_time_rows;
      batch.durations_ms["getBatch"] = ms_since(started);
      if (counts.at(0, "max_event")) {
        batch.event_time = EventTimeStats{count_of("min_event"), count_of("max_event"), std::stod(counts.text(0, "mean_event"))};
        new_watermark = std::max<int64_t>(watermark, batch.event_time->max_us - s_.watermark_delay_us);
      }
      if (auto max_batch = counts.at(0, "max_batch_id")) source_max_batch_id = std::max<int64_t>(source_max_batch_id, std::stoll(*max_batch));

      // The rows that count, with only the columns the state and the aggregates need.
      std::vector<std::string> needed;
      auto need = [&](const std::string& column) {
        if (std::find(needed.begin(), needed.end(), column) == needed.end()) needed.push_back(column);
      };
      for (const auto& column : s_.dedup) need(column);
      need(s_.event_time);
      for (const auto& column : s_.group_by) need(column);
      std::string projection;
      for (const auto& column : needed) projection += (projection.empty() ? "" : ", ") + q(column);
      std::string arguments = open_->aggregates->argument_select();
      if (!arguments.empty()) projection += ", " + arguments;
      std::string rows = "SELECT " + projection + " FROM " + source + " WHERE " + filter + " AND " + on_time;

      std::string kept = "(" + rows + ")";
      if (!s_.dedup.empty()) {
        std::string match;
        for (const auto& d : s_.dedup) match += (match.empty() ? "" : " AND ") + ("d." + q(d) + " IS NOT DISTINCT FROM f." + q(d));
        // The first copy of each key in this batch: oldest first, a NULL last (as ORDER BY puts it).
        std::vector<sql::OrderTerm> oldest_first;
        for (const std::string& col : {batch_column, std::string("partition"), std::string("offset")})
          if (delta::has_column(open_->source_columns, col)) oldest_first.push_back({q(col), false});
        if (oldest_first.empty()) oldest_first.push_back({q(s_.event_time), false});
        con.exec("CREATE OR REPLACE TEMP TABLE window_firsts AS " +
                 sql::row_per_group_sql(projection, "(SELECT * FROM " + source + " WHERE " + filter + " AND " + on_time + ")",
                                        s_.dedup, oldest_first, sql::Pick::First, sql::grouping_for(on_time_rows)));
        // Unless the state remembers the key already (a hash anti-join on the keys). Of the
        // remembered keys, only those whose first column lies within the batch's (or is NULL)
        // can match: said as a range, DuckDB skips the row groups outside it. Keys that rise
        // with time (order ids) then read a few row groups, not an hour of keys (70 CPU-ms a
        // batch for 3.6 million); keys in no order read what they did.
        std::string first = q(s_.dedup.front());
        std::string remembered = "SELECT * FROM " + st("dedup") + " WHERE " + first + " BETWEEN (SELECT min(" + first +
                                 ") FROM window_firsts) AND (SELECT max(" + first + ") FROM window_firsts) UNION ALL SELECT * FROM " +
                                 st("dedup") + " WHERE " + first + " IS NULL";
        con.exec("CREATE OR REPLACE TEMP TABLE window_kept AS SELECT f.* FROM window_firsts f "
                 "ANTI JOIN (" + remembered + ") d ON " + match);
        kept = "window_kept";
        kept_rows = con.scalar_int("SELECT count(*) FROM window_kept");
        batch.duplicates_dropped = on_time_rows - kept_rows;
      }
      con.exec("CREATE OR REPLACE TEMP TABLE window_partial AS " + open_->aggregates->partials_by_window(kept));
    }

    PhaseStart updating = PhaseStart::now();
    // One transaction: state, progress and the batch's output (the outbox).
    std::string windows = st("windows");
    std::string closed = "epoch_us(ws) + " + std::to_string(s_.window_us) + " <= " + w;
    std::string tx = "BEGIN TRANSACTION;";
    if (!no_data) {
      if (!s_.dedup.empty()) {
        std::string cols;
        for (const auto& d : s_.dedup) cols += q(d) + ", ";
        tx += "INSERT INTO " + st("dedup") + " SELECT " + cols + et + " FROM window_kept;";
      }
      tx += "UPDATE " + windows + " w SET " + open_->aggregates->merge_assignments() + " FROM window_partial p WHERE " +
            open_->aggregates->same_window("w", "p") + ";";
      tx += "INSERT INTO " + windows + " SELECT p.* FROM window_partial p WHERE NOT EXISTS (SELECT 1 FROM " + windows +
            " w WHERE " + open_->aggregates->same_window("w", "p") + ");";
    }
    std::string id = std::to_string(planned.id);
    if (s_.output == OutputMode::Append) {
      tx += "INSERT INTO " + st("outbox") + " SELECT " + id + ", " + open_->aggregates->final_select() + " FROM " + windows +
            " WHERE " + closed + ";";
    } else if (!no_data) {
      tx += "INSERT INTO " + st("outbox") + " SELECT " + id + ", " + open_->aggregates->final_select() + " FROM " + windows +
            " w WHERE EXISTS (SELECT 1 FROM window_partial p WHERE " + open_->aggregates->same_window("w", "p") + ");";
    }
    // A closed window can take no more rows: it leaves the state (in append mode, as output).
    tx += "DELETE FROM " + windows + " WHERE " + closed + ";";
    if (auto forgotten = keys_to_forget(watermark)) tx += "DELETE FROM " + st("dedup") + " WHERE " + *forgotten + ";";
    // The source batches after the previous batch's, up to source_max_batch_id, were judged
    // against `watermark`. A batch that read no new source batch (only a compaction of its
    // source, say) judged none: recording its watermark too would give a source batch two.
    if (!no_data && source_max_batch_id > previous_source_max_batch_id)
      tx += "INSERT INTO " + st("watermark_history") + " VALUES (" + std::to_string(source_max_batch_id) + ", " + w + ");";
    WindowStateMeta after = meta();
    after.watermark_us = new_watermark;
    after.watermark_used_us = watermark;
    after.last_batch = planned.id;
    if (!no_data) after.source_version = to;
    after.source_max_batch_id = source_max_batch_id;
    tx += open_->state->set_meta_sql(after);
    tx += "COMMIT";
    try {
      con.exec(tx);
    } catch (const Error&) {
      open_->state->forget_meta();
      try { con.exec("ROLLBACK"); } catch (const Error&) {}
      throw;
    }
    open_->state->remember_meta(after);
    open_->state_rows.reset();
    open_->outbox_rows.reset();
    fault_point("after_state_commit");
    // What the batch left, in one statement: its output, its partials and the state's rows.
    sql::Rows after_counts = con.query("SELECT (SELECT count(*) FROM " + st("outbox") + ") AS outbox, " +
                                       (no_data ? std::string("0") : "(SELECT count(*) FROM window_partial)") +
                                       " AS partials, " + state_rows_sql() + " AS state");
    batch.output_rows = std::stoll(after_counts.text(0, "outbox"));
    const int64_t partial_rows = std::stoll(after_counts.text(0, "partials"));
    open_->outbox_rows = batch.output_rows;
    open_->state_rows = std::stoll(after_counts.text(0, "state"));
    batch.watermark_us = new_watermark;
    // With the checkpoint on an object store, the state goes there before its output goes to the
    // table: a run elsewhere that finds the table's txn at this batch finds this state too.
    open_->state->publish(checkpoint_, planned.id);
    fault_point("after_state_upload");
    flush_outbox(replay);
    StateReport state;
    state.rows_total = *open_->state_rows;
    // Every kept row and every partial updates a state row; what is gone beyond that was removed.
    state.rows_updated = no_data ? 0 : partial_rows + kept_rows;
    state.rows_removed = std::max<int64_t>(0, state_rows_before + state.rows_updated - state.rows_total);
    state.memory_bytes = open_->state->size_bytes();
    batch.state = state;
    con.exec("DROP TABLE IF EXISTS window_firsts; DROP TABLE IF EXISTS window_kept; DROP TABLE IF EXISTS window_partial");
    finish_timings(batch, oldest_input_ms, updating, started);
    ctx_.finish_batch(report_, batch, started);
  }

  StreamContext& ctx_;
  const Stream& s_;
  Checkpoint checkpoint_;
  delta::Table source_table_;
  delta::Table table_;
  OpenWindowState own_;               // a plain run's (or a remote checkpoint's) state, detached at the end
  OpenWindowState* open_ = nullptr;   // own_ or the one kept across cycles; set by open_state
  StreamReport report_;
};

}  // namespace

StreamReport run_window_stream(StreamContext& ctx) { return WindowRun(ctx).run(); }

}  // namespace lakestream
