#include "streams/ingest_stream.h"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>

#include "checkpoint/checkpoint.h"
#include "pipeline/bronze_layout.h"
#include "source/kafka_reader.h"
#include "streams/ingest_worker.h"
#include "streams/kinesis_ingest.h"
#include "streams/kafka_batches.h"
#include "streams/micro_batches.h"
#include "streams/topic_positions.h"
#include "table/delta_types.h"
#include "util/log_time.h"
#include "util/stop.h"

namespace lakestream {

std::vector<delta::Column> bronze_columns(const Source& source) {
  std::vector<delta::Column> fields;
  for (const auto& f : source.schema.fields) fields.push_back({f.name, f.delta_type(), true});
  return bronze_columns(source, fields);
}

std::vector<delta::Column> bronze_columns(const Source& source, std::vector<delta::Column> fields) {
  std::vector<delta::Column> columns = std::move(fields);
  for (const auto& added : lineage_columns(source)) columns.push_back({added.name, added.delta_type(), true});
  return columns;
}

std::vector<delta::Column> quarantine_columns(const Source& source) {
  std::vector<delta::Column> columns;
  for (const auto& position : source_columns(source)) columns.push_back({position.name, position.delta_type(), true});
  columns.push_back({kValueColumn, "binary", true});
  columns.push_back({kReasonColumn, "string", true});
  for (const auto& batch : batch_columns()) columns.push_back({batch.name, batch.delta_type(), true});
  return columns;
}

namespace {

// The plan of a batch that reads from `start` to `end`, with the last record read per partition.
KafkaInput kafka_input(const Offsets& start, const Offsets& end, const std::vector<DataLoss>& data_loss,
                       const std::map<int32_t, LastRead>& last_read) {
  KafkaInput input;
  for (const auto& [p, e] : end) input.partitions[p] = {start.count(p) ? start.at(p) : e, e};
  input.data_loss = data_loss;
  input.last_read = last_read;
  return input;
}

// How often a continuous run that keeps its reader checks again that the records at its positions
// are the ones it read (a topic deleted and created again while the reader stays assigned).
constexpr auto kRecheckPositionsEvery = std::chrono::seconds(60);

// The least wait for the pace (seconds) during which the reader stops fetching: a shorter one
// saves fewer fetches than the records it drops cost to fetch again.
constexpr double kPauseFetchingFrom = 0.02;

// The reader a continuous run kept from its last cycle, or a new one (kept from now on when the
// run keeps readers).
std::shared_ptr<KafkaReader> kept_or_new_reader(StreamContext& ctx, const Source& source) {
  if (!ctx.kept) return std::make_shared<KafkaReader>(ctx.pipeline.kafka, source.topic, source.max_offsets_per_trigger);
  if (!ctx.kept->reader) {
    ctx.kept->positions_checked_at = {};  // a new reader checks its positions first
    ctx.kept->reader = std::make_shared<KafkaReader>(ctx.pipeline.kafka, source.topic, source.max_offsets_per_trigger);
  }
  return ctx.kept->reader;
}

class IngestRun {
 public:
  explicit IngestRun(StreamContext& ctx)
      : ctx_(ctx),
        source_(*ctx.pipeline.find_source(ctx.stream.source)),
        batches_(ctx, source_, kept_or_new_reader(ctx, source_)),
        checkpoint_(ctx.pipeline, ctx.stream),
        report_(batches_.report()) {
    report_.stream_id = checkpoint_.id();
  }

  StreamReport run() {
    auto started = std::chrono::steady_clock::now();
    int64_t committed = checkpoint_.committed_batch({batches_.writer().bronze()});
    checkpoint_.check_definition(committed >= 0 || checkpoint_.committed_batch({batches_.writer().quarantine()}) >= 0);
    MicroBatches batches(checkpoint_, checkpoint_.last_planned_for(committed, ctx_.stream.name), committed);
    const bool first_ever = !batches.last();
    if (batches.last()) positions().start_from(batches.last()->kafka().last_read);
    if (const PlannedBatch* unfinished = batches.to_replay()) {
      // A run died after planning this batch: replay exactly its input, if it is still the same.
      const KafkaInput& input = unfinished->kafka();
      auto batch = batches_.read(unfinished->id, input.start_offsets(), input.end_offsets(), input.data_loss, true, ctx_.con);
      positions().refuse_if_replay_differs(batch->id, batch->last_read, input);
      batches_.write(*batch, checkpoint_.id(), nullptr);
      ctx_.on_committed();
      ctx_.finish_batch(report_, batch->report, batch->started);
    }
    Offsets start = first_ever ? Offsets{} : batches.last()->kafka().end_offsets();
    std::vector<DataLoss> data_loss;
    wait_for_the_pace();
    Offsets end = positions().end_offsets(batches_.reader(), start, first_ever, data_loss, nullptr, positions_due_for_check());
    batches_.saw_latest(end);

    auto plans = plan_batches(start, end, source_.max_offsets_per_trigger);
    // An empty first batch records where a `latest` start begins; an empty batch after a loss
    // records the gap (in the plan, then in the bronze commit), even when nothing new is there.
    if (plans.empty() && (first_ever || !data_loss.empty())) plans.push_back({});
    // Nothing new in a continuous cycle: wait for the next record in the consumer rather than in
    // a sleep, so that a record is read as soon as it is fetched. The next cycle plans its read.
    if (plans.empty() && ctx_.wait_for_records_ms > 0 && ctx_.kept) {
      wait_for_records(start);
      report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      return report_;
    }
    // DuckDB's worker threads only contend here (the reader, the writer and librdkafka's
    // fetcher keep both cores busy): without them the run takes 10% less CPU.
    // (Only with something to do: a run with nothing new never starts DuckDB.)
    // A continuous run's stage keeps its DuckDB to itself and the setting for good.
    std::optional<sql::ScopedSetting> one_thread;
    if (!plans.empty() && ctx_.continuous) ctx_.con.keep_setting("threads", "1");
    else if (!plans.empty()) one_thread.emplace(ctx_.con, "threads", "1");
    // Batch N+1 is read from Kafka and decoded while batch N is written and committed on a
    // second thread (each batch has its own DuckDB connection: the batch tables are
    // per connection). Reading changes nothing durable; N+1 is planned only once N is
    // committed, so a crash at any point leaves at most the last planned batch to replay.
    sql::Connection second_con(ctx_.con.database());
    sql::Connection* cons[2] = {&ctx_.con, &second_con};
    std::unique_ptr<KafkaBatch> writing_batch;  // outlives `writing`, which refers to it
    std::future<void> writing;
    auto finish_writing = [&] {
      if (!writing.valid()) return;
      writing.get();  // rethrows the writer's error
      ctx_.finish_batch(report_, writing_batch->report, writing_batch->started);
      writing_batch.reset();
    };
    // A continuous run reads on while records keep coming (for up to wait_for_records_ms), so that
    // its next batch is read while the last one is written, as the planned batches of one run
    // are, rather than after the run ends; each batch is still planned once the last is committed.
    bool reads_on = ctx_.kept && ctx_.wait_for_records_ms > 0;
    auto reads_on_until = started + std::chrono::milliseconds(ctx_.wait_for_records_ms);
    if (!plans.empty() && ctx_.kept) ctx_.kept->input_taken_at = std::chrono::steady_clock::now();
    for (size_t at = 0;; at++) {
      if (at == plans.size()) {
        if (!reads_on || stop_requested() || std::chrono::steady_clock::now() >= reads_on_until) break;
        if (wait_for_the_pace()) break;
        if (ctx_.kept) ctx_.kept->input_taken_at = std::chrono::steady_clock::now();
        Offsets more = positions().end_offsets(batches_.reader(), start, /*first_run=*/false, data_loss);
        plans = plan_batches(start, more, source_.max_offsets_per_trigger);
        if (plans.empty() && !data_loss.empty()) plans.push_back({});  // the gap is recorded
        if (plans.empty()) break;
        batches_.saw_latest(more);
        at = 0;
      }
      const auto& ranges = plans[at];
      // A stop request (SIGTERM in continuous mode) lets the batch in flight finish, no more.
      if (stop_requested()) {
        report_.stopped = true;
        break;
      }
      Offsets batch_end = start;
      for (const auto& r : ranges) batch_end[r.partition] = r.end;
      auto batch = batches_.read(batches.next_id(), start, batch_end, data_loss, false, *cons[batches.next_id() % 2]);
      batch->report.warning = positions().take_began_late_warning();
      finish_writing();
      if (stop_requested()) {  // read but not planned: nothing to undo
        report_.stopped = true;
        break;
      }
      auto planning = std::chrono::steady_clock::now();
      positions().read(batch->last_read);
      batches.plan(kafka_input(start, batch_end, data_loss, positions().last_read()));
      batch->report.durations_ms["walCommit"] = ms_since(planning);
      writing_batch = std::move(batch);
      writing = std::async(std::launch::async, [this, b = writing_batch.get()] {
        // Reading is the longer half of a batch; the writer has time to spare, so the reader
        // (and librdkafka's fetcher) get the cores first.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
        pthread_setname_np(pthread_self(), "ls:write-bronze");  // told from the reader in top and the soak
        batches_.write(*b, checkpoint_.id(), nullptr);
        ctx_.on_committed();
      });
      data_loss.clear();  // recorded by the first batch after it
      start = batch_end;
    }
    finish_writing();
    batches.forget_old_plans();
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report_;
  }

 private:
  // Whether this run checks that its positions still hold the records it read (see end_offsets):
  // always with a new reader, and every kRecheckPositionsEvery with a reader kept across cycles.
  bool positions_due_for_check() {
    if (!ctx_.kept) return true;
    auto now = std::chrono::steady_clock::now();
    if (ctx_.kept->positions_checked_at != std::chrono::steady_clock::time_point{} &&
        now - ctx_.kept->positions_checked_at < kRecheckPositionsEvery)
      return false;
    ctx_.kept->positions_checked_at = now;
    return true;
  }

  // With a target latency, a batch takes what arrives within half of it after the last batch took
  // its input (that one is written meanwhile): fewer, larger batches, each input committed in
  // time. A batch after a quiet spell does not wait. True when a stop was requested meanwhile.
  // The reader stops fetching meanwhile (a wait of kPauseFetchingFrom or more), then fetches what
  // came in one go rather than a few records at a time.
  bool wait_for_the_pace() {
    if (ctx_.batch_pace.count() == 0 || !ctx_.kept) return stop_requested();
    double left =
        std::chrono::duration<double>(ctx_.kept->input_taken_at + ctx_.batch_pace - std::chrono::steady_clock::now()).count();
    if (left <= 0) return stop_requested();
    const bool pause = left >= kPauseFetchingFrom;
    if (pause) batches_.reader().pause_fetching();
    bool stopped = sleep_unless_stopped(left);
    if (pause) batches_.reader().resume_fetching();
    return stopped;
  }

  // Waits up to wait_for_records_ms, in slices so that a stop request ends the wait soon.
  void wait_for_records(const Offsets& next) {
    constexpr int kSliceMs = 100;
    for (int waited = 0; waited < ctx_.wait_for_records_ms && !stop_requested(); waited += kSliceMs)
      if (batches_.reader().wait_for_records(next, std::min(kSliceMs, ctx_.wait_for_records_ms - waited))) return;
  }

  TopicPositions& positions() { return batches_.positions(); }

  StreamContext& ctx_;
  const Source& source_;
  KafkaBatches batches_;  // its reader kept across the cycles of a continuous run (see kept_or_new_reader)
  Checkpoint checkpoint_;
  StreamReport& report_;
};

}  // namespace

StreamReport run_ingest_stream(StreamContext& ctx) {
  if (ctx.pipeline.find_source(ctx.stream.source)->is_kinesis()) return run_kinesis_ingest(ctx);
  try {
    if (!ctx.pipeline.worker_group(ctx.stream).empty()) return run_ingest_worker(ctx);
    return IngestRun(ctx).run();
  } catch (...) {
    // Whatever failed, the next cycle reads from the checkpoint with a new consumer.
    if (ctx.kept) ctx.kept->reader.reset();
    throw;
  }
}

}  // namespace lakestream
