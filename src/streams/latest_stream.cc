#include "streams/latest_stream.h"

#include <chrono>
#include <set>

#include "checkpoint/checkpoint.h"
#include "sinks/table_sink.h"
#include "sinks/upsert.h"
#include "source/table_source.h"
#include "streams/table_batches.h"
#include "table/schema_columns.h"
#include "util/error.h"
#include "util/fault.h"

namespace lakestream {

namespace {

class LatestRun {
 public:
  explicit LatestRun(StreamContext& ctx)
      : ctx_(ctx),
        checkpoint_(ctx.pipeline, ctx.stream),
        source_path_(ctx.pipeline.table_path(ctx.stream.from)),
        table_path_(ctx.pipeline.table_path(ctx.stream.table)) {
    report_.stream = ctx.stream.name;
    report_.stream_id = checkpoint_.id();
    report_.source = "DeltaSource[" + ctx.stream.from + "]";
    report_.table = ctx.stream.table;
  }

  StreamReport run() {
    auto started = std::chrono::steady_clock::now();
    int64_t committed = delta::txn_version(table_path_, checkpoint_.id());
    checkpoint_.check_definition(committed >= 0);
    std::optional<PlannedBatch> last = checkpoint_.last_planned();
    if (last && last->id > committed) run_batch(*last, true);
    int64_t next_id = last ? last->id + 1 : 0;
    int64_t next_from = last ? last->table().to + 1 : 0;
    run_planned_table_batches(source_path_, checkpoint_, ctx_.stream.max_files_per_trigger, next_id, next_from,
                              [&](const PlannedBatch& batch) { run_batch(batch, false); });
    if (next_id > 100) checkpoint_.forget_before(next_id - 100);
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report_;
  }

 private:
  void run_batch(const PlannedBatch& planned, bool replay) {
    auto started = std::chrono::steady_clock::now();
    const Stream& s = ctx_.stream;
    BatchReport batch;
    batch.batch_id = planned.id;
    batch.replayed = replay;
    batch.started_at_us = wall_clock_us();
    int64_t from = planned.table().from, to = planned.table().to;
    batch.start_offset = from;
    batch.end_offset = to;
    batch.latest_offset = delta::latest_version(source_path_);
    batch.description = "versions " + std::to_string(from) + "-" + std::to_string(to) + " of " + s.from;

    TableChanges changes = read_table_changes(source_path_, from, to);
    const auto& columns = changes.shape.metadata.schema;
    auto& con = ctx_.con;
    // A NULL in a key column is a value like any other, as in GROUP BY: those events are one
    // entity, never dropped.
    std::string keys;
    for (const auto& k : s.key) keys += (keys.empty() ? "" : ", ") + sql::quote_ident(k);
    std::string order = sql::quote_ident(s.order_by) + " DESC NULLS LAST";
    // A tie on the ordering column goes to the later (partition, offset), as across batches.
    for (const char* tie : {"partition", "offset"})
      if (delta::has_column(columns, tie)) order += ", " + sql::quote_ident(tie) + " DESC";
    std::string source = "(" + changes_scan_sql(changes) + ") AS source";
    auto counted = rows_by_statistics(changes);
    batch.input_rows = counted ? *counted : con.scalar_int("SELECT count(*) FROM " + source);
    batch.durations_ms["getBatch"] = ms_since(started);
    auto merging = std::chrono::steady_clock::now();
    // The newest row per key, straight from the batch's files.
    con.exec("CREATE OR REPLACE TEMP TABLE latest_newest AS SELECT * FROM " + source +
             " QUALIFY row_number() OVER (PARTITION BY " + keys + " ORDER BY " + order + ") = 1");

    std::string keep_existing = existing_row_stays(columns);
    nlohmann::json info = {{"lakestream", {{"stream", s.name}, {"batchId", planned.id},
                                           {"source", {{"table", s.from}, {"fromVersion", from}, {"toVersion", to}}}}}};
    SinkCommit sink{table_path_, columns, checkpoint_.id(), planned.id, "MERGE", info, {}};
    sink.replay = replay;
    bool written = commit_once(sink, [&](delta::Commit& commit, const delta::Snapshot& snapshot) {
      batch.output_rows = upsert_rows(con, table_path_, commit, snapshot, "latest_newest", s.key, keep_existing, columns).rows_written;
    });
    batch.already_committed = !written;
    con.exec("DROP TABLE IF EXISTS latest_newest");
    batch.durations_ms["addBatch"] = ms_since(merging);
    batch.durations_ms["triggerExecution"] = ms_since(started);
    ctx_.finish_batch(report_, batch, started);
  }

  // Silver's one rule, the same within a batch and across batches: the row of a key is its newest
  // event by (order_by, partition, offset), a NULL order_by oldest. The existing row stays unless
  // the incoming one is newer by that order; an identical resend of it changes nothing, not even
  // its partition and offset (kept in the table, they decide later ties).
  std::string existing_row_stays(const std::vector<delta::Column>& columns) const {
    std::string ob = sql::quote_ident(ctx_.stream.order_by);
    std::string newer = "coalesce(s." + ob + " > t." + ob + ", s." + ob + " IS NOT NULL AND t." + ob + " IS NULL)";
    if (delta::has_column(columns, "partition") && delta::has_column(columns, "offset"))
      newer = "(" + newer + " OR (s." + ob + " IS NOT DISTINCT FROM t." + ob +
              " AND coalesce([s.\"partition\"::BIGINT, s.\"offset\"] > [t.\"partition\"::BIGINT, t.\"offset\"], false)))";
    // The columns ingest adds to each event record where a copy was read, not what it says.
    static const std::set<std::string> lineage = {"partition", "offset", "kafka_timestamp", "key", "_batch_id", "_ingested_at"};
    std::string same_event = "true";
    for (const auto& c : columns)
      if (!lineage.count(c.name))
        same_event += " AND s." + sql::quote_ident(c.name) + " IS NOT DISTINCT FROM t." + sql::quote_ident(c.name);
    return "NOT " + newer + " OR (" + same_event + ")";
  }

  StreamContext& ctx_;
  Checkpoint checkpoint_;
  std::string source_path_;
  std::string table_path_;
  StreamReport report_;
};

}  // namespace

StreamReport run_latest_stream(StreamContext& ctx) { return LatestRun(ctx).run(); }

}  // namespace lakestream
