#include "streams/latest_stream.h"

#include <chrono>
#include <thread>

#include "checkpoint/checkpoint.h"
#include "pipeline/bronze_layout.h"
#include "pipeline/change_columns.h"
#include "sinks/file_key_sets.h"
#include "sinks/lake_table.h"
#include "sinks/key_index.h"
#include "sinks/newest_wins.h"
#include "sinks/table_sink.h"
#include "sinks/upsert.h"
#include "source/table_source.h"
#include "streams/table_stream_driver.h"
#include "table/commit_record.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"

namespace lakestream {

namespace {

// The column of the batch's newest changes that says a change is a delete (the stream's deletes
// condition, evaluated once); never written to a table.
constexpr const char* kDeleteFlag = "__lakestream_delete";

// A continuous run's batch merges on one thread below this many rows; a batch of a service
// catching up (5 s of 50,000 events/s) uses every core. DuckDB's workers cost more to wake and wait
// for than a small batch's work (about 100 rows took 31 CPU-ms on two threads, 17 on one), and at
// 50,000/s on two cores a service's own batches (10,000 to 100,000 rows) did worse on two threads
// than on one, beside bronze's and gold's: the bench's silver p99 1.1 and 1.3 s on one thread,
// 1.7 to 5.6 s when batches of 20,000 rows took both (docs/performance.md).
constexpr int64_t kRowsWorthEveryCore = 250'000;

// The rows of `changes` a latest stream reads: of a change data feed, every change but the
// preimages (a row's state before the update whose postimage follows it: never the newest).
std::string latest_rows_sql(const TableChanges& changes) {
  std::string rows = changes_scan_sql(changes);
  if (changes.read != SourceRead::Changes) return rows;
  return "SELECT * FROM (" + rows + ") WHERE " + std::string(kChangeTypeColumn) + " <> 'update_preimage'";
}

// What finds the rows a batch's keys replace, kept by a continuous run from one cycle to the next
// (and by a plain run from batch to batch): the key index (merge-on-read), the files' key sets.
struct KeyLookups : KeptStreamState {
  std::unique_ptr<KeyIndex> index;
  std::unique_ptr<FileKeySets> key_sets;
};

class LatestRun : TableBatchKind {
 public:
  explicit LatestRun(StreamContext& ctx)
      : ctx_(ctx),
        checkpoint_(ctx.pipeline, ctx.stream),
        source_table_(lake_table(ctx.pipeline, ctx.stream.from)),
        table_(lake_table(ctx.pipeline, ctx.stream.table)) {
    report_.stream = ctx.stream.name;
    report_.stream_id = checkpoint_.id();
    report_.source = "DeltaSource[" + ctx.stream.from + "]";
    report_.table = ctx.stream.table;
  }

  StreamReport run() {
    auto started = std::chrono::steady_clock::now();
    int64_t committed = checkpoint_.committed_batch({table_});
    checkpoint_.check_definition(committed >= 0);
    drive_table_batches(source_table_, checkpoint_, ctx_.stream.max_files_per_trigger, committed, *this);
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report_;
  }

 private:
  void run_batch(const PlannedBatch& planned, bool replay) override {
    CpuScope cpu_scope("latest.run_batch");
    auto started = std::chrono::steady_clock::now();
    const Stream& s = ctx_.stream;
    BatchReport batch;
    batch.batch_id = planned.id;
    batch.replayed = replay;
    batch.started_at_us = wall_clock_us();
    int64_t from = planned.table().from, to = planned.table().to;
    batch.start_offset = from;
    batch.end_offset = to;
    batch.latest_offset = delta::latest_version(source_table_);
    batch.description = "versions " + std::to_string(from) + "-" + std::to_string(to) + " of " + s.from;

    TableChanges changes = read_table_changes(source_table_, from, to, s.read);
    const auto& columns = changes.columns;
    auto& con = ctx_.con;
    const NewestWins newest = rule(columns);
    std::string source = "(" + latest_rows_sql(changes) + ") AS source";
    auto counted = rows_by_statistics(changes);
    batch.input_rows = counted ? *counted : con.scalar_int("SELECT count(*) FROM " + source);
    batch.durations_ms["getBatch"] = ms_since(started);
    // The stage owns its DuckDB: the setting stays until a batch needs the other.
    const sql::Grouping grouping = sql::grouping_for(batch.input_rows);
    if (ctx_.continuous)
      con.keep_setting("threads", batch.input_rows >= kRowsWorthEveryCore
                                      ? std::to_string(std::max(1u, std::thread::hardware_concurrency()))
                                      : "1");
    PhaseStart merging = PhaseStart::now();
    // The newest row per key, straight from the batch's files (a delete event included: it is
    // the newest change of its key as much as an update is). A NULL key is a key like any other:
    // those events are one entity, never dropped. Of identical copies (a resend), the newest
    // position, as across batches (sinks/newest_wins.h).
    std::string delete_flag = s.deletes.empty() ? "" : ", coalesce((" + s.deletes + "), false) AS " + kDeleteFlag;
    con.exec("CREATE OR REPLACE TEMP TABLE latest_newest AS " +
             newest_per_key_sql(newest, s.key, "(SELECT *" + delete_flag + " FROM " + source + ") AS changes",
                                grouping));

    std::string keep_existing = existing_row_stays_sql(newest);
    CommitRecord record;
    record.stream = s.name;
    record.batch_id = planned.id;
    record.table = TableRead{s.from, from, to};
    std::string incoming = "latest_newest";
    if (!s.deletes.empty()) incoming = remember_deletes(planned.id, replay, columns, record);
    SinkCommit sink;
    sink.table = table_;
    sink.schema = columns;
    sink.app_id = checkpoint_.id();
    sink.batch_id = planned.id;
    sink.operation = "MERGE";
    sink.record = record;
    sink.replay = replay;
    sink.properties = ctx_.pipeline.table_properties(s);
    if (s.deletion_vectors) sink.properties["delta.enableDeletionVectors"] = "true";
    std::string removes = s.deletes.empty() ? "" : std::string("s.") + kDeleteFlag;
    KeyIndex* index = key_index(columns, newest);
    FileKeySets* key_sets = file_key_sets();
    bool written = commit_once(sink, [&](delta::Commit& commit, const delta::Snapshot& snapshot) {
      UpsertResult merged =
          upsert_rows(con, table_, commit, snapshot, incoming, s.key, keep_existing, columns, removes, index, key_sets);
      batch.output_rows = merged.rows_written;
      batch.deletes = merged.rows_removed;
    });
    if (index && written) index->committed(con);
    if (index && index->built()) {
      StateReport state;
      state.operator_name = "keyIndex";
      state.rows_total = index->rows();
      state.rows_updated = batch.output_rows;
      state.rows_removed = batch.deletes;
      state.memory_bytes = index->memory_bytes();
      batch.state = state;
    } else if (key_sets && key_sets->files() > 0) {
      StateReport state;
      state.operator_name = "fileKeySets";
      state.rows_total = key_sets->files();
      state.memory_bytes = key_sets->memory_bytes();
      batch.state = state;
    }
    batch.already_committed = !written;
    con.exec("DROP TABLE IF EXISTS latest_newest; DROP TABLE IF EXISTS latest_applied");
    finish_timings(batch, changes.oldest_commit_ms, merging, started);
    ctx_.finish_batch(report_, batch, started);
  }

  // The delete events of the batch, remembered before silver is merged: per key, the newest
  // change is kept in the deleted table when it is a delete, and a key's remembered delete goes
  // when a newer change of it comes. Then the batch's changes that a remembered delete is newer
  // than are left out (a late update does not bring a deleted row back). Committed once, by txn,
  // before silver: after a crash between the two, the replay finds this batch's deletes there,
  // and each change is only ever left out for a delete strictly newer than itself, so the replay
  // merges silver as the first try would have. Returns the table of the changes to merge.
  std::string remember_deletes(int64_t batch_id, bool replay, const std::vector<delta::Column>& columns,
                               const CommitRecord& record) {
    const Stream& s = ctx_.stream;
    auto& con = ctx_.con;
    if (s.deletes_retention) check_retention_scale(columns);
    const delta::Table deleted_table = lake_table(ctx_.pipeline, s.deleted_table());
    SinkCommit sink;
    sink.table = deleted_table;
    sink.schema = columns;
    sink.app_id = checkpoint_.id();
    sink.batch_id = batch_id;
    sink.operation = "MERGE";
    sink.record = record;
    sink.replay = replay;
    sink.properties = ctx_.pipeline.table_properties(s);
    sink.properties.erase("delta.enableChangeDataFeed");  // the stream's own memory, no one reads its changes
    commit_once(sink, [&](delta::Commit& commit, const delta::Snapshot& snapshot) {
      std::string incoming = "latest_newest";
      std::string keep_existing = existing_row_stays_sql(rule(columns));
      std::string removes = std::string("NOT s.") + kDeleteFlag;
      if (s.deletes_retention && !snapshot.files.empty()) {
        // The deletes past retention go in the same commit as the batch's: each as an incoming
        // row that removes itself, so a replay after a crash forgets exactly what the first try did.
        incoming = expired_deletes(snapshot, columns);
        keep_existing = "NOT s._expired AND (" + keep_existing + ")";
        removes = "s._expired OR " + removes;
      }
      upsert_rows(con, deleted_table, commit, snapshot, incoming, s.key, keep_existing, columns, removes);
    });
    fault_point("after_deleted_commit");
    delta::Snapshot deleted = delta::load_snapshot(deleted_table);
    std::string match;
    for (const auto& k : s.key)
      match += (match.empty() ? "" : " AND ") + ("s." + sql::quote_ident(k) + " IS NOT DISTINCT FROM t." + sql::quote_ident(k));
    std::string sql = "CREATE OR REPLACE TEMP TABLE latest_applied AS SELECT * FROM latest_newest";
    if (!deleted.files.empty())
      sql += " s WHERE s." + std::string(kDeleteFlag) + " OR NOT EXISTS (SELECT 1 FROM (" + delta::scan_sql(deleted) +
             ") t WHERE " + match + " AND " + newer_sql(rule(columns), "t", "s") + ")";
    con.exec(sql);
    return "latest_applied";
  }

  // The batch's changes (latest_newest) and, marked _expired, the remembered deletes in
  // `deleted` that deletes_retention lets go: older by order_by than the batch's newest change
  // minus the retention, of keys the batch does not change. Returns the DuckDB table's name.
  std::string expired_deletes(const delta::Snapshot& deleted, const std::vector<delta::Column>& columns) {
    const Stream& s = ctx_.stream;
    std::string ob = sql::quote_ident(s.order_by);
    std::string keys;
    for (const auto& k : s.key)
      keys += (keys.empty() ? "" : " AND ") + ("d." + sql::quote_ident(k) + " IS NOT DISTINCT FROM n." + sql::quote_ident(k));
    ctx_.con.exec("CREATE OR REPLACE TEMP TABLE latest_deleted_kept AS SELECT *, false AS _expired FROM latest_newest "
                  "UNION ALL BY NAME SELECT d.*, true AS _expired, true AS " + std::string(kDeleteFlag) + " FROM (" +
                  delta::scan_sql(deleted) + ") d WHERE coalesce(d." + ob + " < (SELECT max(" + ob + ") FROM latest_newest) - " +
                  deletes_retention_sql(*s.deletes_retention) + ", d." + ob + " IS NULL AND (SELECT max(" + ob +
                  ") FROM latest_newest) IS NOT NULL) AND NOT EXISTS (SELECT 1 FROM latest_newest n WHERE " + keys + ")");
    return "latest_deleted_kept";
  }

  // A duration retention needs a timestamp or date order_by, a number a numeric one: said with
  // the pipeline file's line rather than as DuckDB's type error.
  void check_retention_scale(const std::vector<delta::Column>& columns) const {
    const Stream& s = ctx_.stream;
    const delta::Column* order_by = delta::find_column(columns, s.order_by);
    if (!order_by || !order_by->type.is_string()) return;  // the scan's error names it
    std::string type = order_by->type.get<std::string>();
    bool in_time = type == "timestamp" || type == "timestamp_ntz" || type == "date";
    bool numeric = type == "long" || type == "integer" || type == "short" || type == "byte" || type == "double" ||
                   type == "float" || type.starts_with("decimal");
    const DeletesRetention& r = *s.deletes_retention;
    if (r.is_duration ? in_time : numeric) return;
    throw Error(ctx_.pipeline.path + ":" + std::to_string(r.line) + ": streams." + s.name + ".deletes_retention: '" + r.text +
                "' " + (r.is_duration ? "is a duration, but order_by " + s.order_by + " is " + type +
                                            "; write a number in " + s.order_by + "'s units"
                                      : "is a number, but order_by " + s.order_by + " is " + type +
                                            "; write a duration, e.g. \"30 days\""));
  }

  // Silver's rule for these columns (sinks/newest_wins.h). What decides between two rows of a
  // key with the same order_by, in order: of a change data feed, the later version's change (a
  // delete repeats the row it deletes); then the later Kafka position (partition, offset) where
  // the rows keep one.
  NewestWins rule(const std::vector<delta::Column>& columns) const {
    NewestWins rule;
    rule.order_by = ctx_.stream.order_by;
    if (ctx_.stream.read == SourceRead::Changes) rule.ties.push_back(kCommitVersionColumn);
    if (delta::has_column(columns, "partition") && delta::has_column(columns, "offset")) {
      rule.ties.push_back("partition");
      rule.ties.push_back("offset");
    }
    return rule;
  }

  // Building the index or a file's key set reads what the batch would read anyway, and more:
  // worth it for a service, and from a plain run's second batch on (a run of one batch reads the
  // table's keys once either way).
  bool worth_lookups() const { return ctx_.continuous || !report_.batches.empty(); }

  KeyLookups& lookups() {
    if (!ctx_.kept) return own_lookups_;
    auto* kept = dynamic_cast<KeyLookups*>(ctx_.kept->state.get());
    if (!kept) {
      ctx_.kept->state = std::make_unique<KeyLookups>();
      kept = static_cast<KeyLookups*>(ctx_.kept->state.get());
    }
    return *kept;
  }

  // The index of silver's keys for merge-on-read (sinks/key_index.h), kept across a continuous
  // run's cycles; null when it would not pay or cannot serve these columns.
  KeyIndex* key_index(const std::vector<delta::Column>& columns, const NewestWins& rule) {
    const Stream& s = ctx_.stream;
    if (!worth_lookups() || !KeyIndex::serves(columns, s.key, rule)) return nullptr;
    std::unique_ptr<KeyIndex>& slot = lookups().index;
    if (!slot || !slot->made_for(s.key, rule, columns)) slot = std::make_unique<KeyIndex>(s.key, rule, columns);
    return slot.get();
  }

  // The key values each file of silver holds (sinks/file_key_sets.h), kept as the index is.
  FileKeySets* file_key_sets() {
    if (!worth_lookups()) return nullptr;
    std::unique_ptr<FileKeySets>& slot = lookups().key_sets;
    if (!slot) slot = std::make_unique<FileKeySets>();
    return slot.get();
  }

  StreamContext& ctx_;
  Checkpoint checkpoint_;
  delta::Table source_table_;
  delta::Table table_;
  StreamReport report_;
  KeyLookups own_lookups_;
};

}  // namespace

StreamReport run_latest_stream(StreamContext& ctx) { return LatestRun(ctx).run(); }

}  // namespace lakestream
