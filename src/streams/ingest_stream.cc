#include "streams/ingest_stream.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "checkpoint/checkpoint.h"
#include "pipeline/bronze_layout.h"
#include "sinks/partition_commit.h"
#include "source/group_membership.h"
#include "source/kafka_reader.h"
#include "source/record_fingerprint.h"
#include "sql/utc_date.h"
#include "streams/bronze_writer.h"
#include "streams/ingest_batch.h"
#include "streams/kinesis_ingest.h"
#include "streams/micro_batches.h"
#include "streams/writer_schemas.h"
#include "table/delta_types.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log_time.h"
#include "util/plural.h"
#include "util/stop.h"

namespace lakestream {

using Offsets = std::map<int32_t, int64_t>;

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

// The last record read in each partition, kept as a copy (a record's bytes live only during the
// read's callback) and fingerprinted once at the end rather than for every record.
class LastRecords {
 public:
  void keep(const KafkaRecord& r) {
    // Records come in runs of one partition: look its copy up only when the partition changes.
    if (!current_ || current_partition_ != r.partition) {
      current_ = &last_[r.partition];
      current_partition_ = r.partition;
    }
    Copy& c = *current_;
    c.offset = r.offset;
    c.timestamp_ms = r.timestamp_ms;
    c.has_key = r.key != nullptr;
    c.has_value = r.value != nullptr;
    c.key.assign(r.key ? r.key : "", r.key ? r.key_size : 0);
    c.value.assign(r.value ? r.value : "", r.value ? r.value_size : 0);
  }
  std::map<int32_t, LastRead> fingerprints() const {
    std::map<int32_t, LastRead> out;
    for (const auto& [p, c] : last_) {
      KafkaRecord record{p, c.offset, c.timestamp_ms, c.has_key ? c.key.data() : nullptr, c.key.size(),
                         c.has_value ? c.value.data() : nullptr, c.value.size()};
      out[p] = {c.offset, c.timestamp_ms, record_fingerprint(record)};
    }
    return out;
  }

 private:
  struct Copy {
    int64_t offset = -1, timestamp_ms = -1;
    bool has_key = false, has_value = false;
    std::string key, value;
  };
  std::map<int32_t, Copy> last_;  // std::map: a pointer to an element stays valid as others are added
  Copy* current_ = nullptr;
  int32_t current_partition_ = -1;
};

// How often a continuous run that keeps its reader checks again that the records at its positions
// are the ones it read (a topic deleted and created again while the reader stays assigned).
constexpr auto kRecheckPositionsEvery = std::chrono::seconds(60);

std::string describe(const std::vector<PartitionRange>& ranges) {
  std::string text;
  for (const auto& r : ranges) {
    if (!text.empty()) text += " ";
    text += std::to_string(r.partition) + ":" + std::to_string(r.start) + "-" + std::to_string(r.end);
  }
  return text.empty() ? "no records" : "offsets " + text;
}

// The reader a continuous run kept from its last cycle, or a new one (kept from now on when the
// run keeps readers). A worker's partitions move with the group, so a worker has a new one per cycle.
std::shared_ptr<KafkaReader> kept_or_new_reader(StreamContext& ctx, const Source& source) {
  bool keep = ctx.kept && ctx.pipeline.worker_group(ctx.stream).empty();
  if (keep && ctx.kept->reader) return ctx.kept->reader;
  if (ctx.kept) ctx.kept->positions_checked_at = {};  // a new reader checks its positions first
  auto reader = std::make_shared<KafkaReader>(ctx.pipeline.kafka, source.topic, source.max_offsets_per_trigger);
  if (keep) ctx.kept->reader = reader;
  return reader;
}

class IngestRun {
 public:
  explicit IngestRun(StreamContext& ctx)
      : ctx_(ctx),
        source_(*ctx.pipeline.find_source(ctx.stream.source)),
        reader_(kept_or_new_reader(ctx, source_)),
        writer_(ctx.pipeline, ctx.stream, source_),
        bronze_table_(writer_.bronze()),
        quarantine_table_(writer_.quarantine()) {
    report_.stream = ctx.stream.name;
    std::string group = ctx.pipeline.worker_group(ctx.stream);
    if (group.empty()) {
      checkpoint_.emplace(ctx.pipeline, ctx.stream);
      report_.stream_id = checkpoint_->id();
    } else {
      // A worker: the group says which partitions are its own, the bronze table's per-partition
      // txns where each stands. No checkpoint lock: the workers share the stream.
      membership_ = &joined_group(ctx.pipeline.kafka, group, source_.topic);
      report_.stream_id = group;
    }
    report_.source = "KafkaV2[Subscribe[" + source_.topic + "]]";
    report_.table = ctx.stream.table;
    if (source_.format == SourceFormat::Avro)
      writer_schemas_ = std::make_unique<WriterSchemas>(source_, ctx.stream.table, writer_.field_columns());
  }

  StreamReport run() {
    if (membership_) return run_as_worker();
    auto started = std::chrono::steady_clock::now();
    int64_t committed = checkpoint_->committed_batch({bronze_table_});
    checkpoint_->check_definition(committed >= 0 ||
                                 checkpoint_->committed_batch({quarantine_table_}) >= 0);
    MicroBatches batches(*checkpoint_, checkpoint_->last_planned_for(committed, ctx_.stream.name), committed);
    const bool first_ever = !batches.last();
    if (batches.last()) last_read_ = batches.last()->kafka().last_read;
    if (const PlannedBatch* unfinished = batches.to_replay()) {
      // A run died after planning this batch: replay exactly its input, if it is still the same.
      const KafkaInput& input = unfinished->kafka();
      auto batch = read_batch(unfinished->id, input.start_offsets(), input.end_offsets(), input.data_loss, true, ctx_.con);
      refuse_if_replay_differs(batch->id, batch->last_read, input);
      write_batch(*batch);
      ctx_.finish_batch(report_, batch->report, batch->started);
    }
    Offsets start = first_ever ? Offsets{} : batches.last()->kafka().end_offsets();
    std::vector<DataLoss> data_loss;
    wait_for_the_pace();
    Offsets end = end_offsets(start, first_ever, data_loss, nullptr, positions_due_for_check());
    latest_ = end;

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
    std::unique_ptr<Batch> writing_batch;  // outlives `writing`, which refers to it
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
        Offsets more = end_offsets(start, /*first_run=*/false, data_loss);
        plans = plan_batches(start, more, source_.max_offsets_per_trigger);
        if (plans.empty() && !data_loss.empty()) plans.push_back({});  // the gap is recorded
        if (plans.empty()) break;
        latest_ = more;
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
      auto batch = read_batch(batches.next_id(), start, batch_end, data_loss, false, *cons[batches.next_id() % 2]);
      if (!began_late_.empty())
        batch->report.warning = began_late_ + ": the records before were deleted (retention) before this stream "
                                "first read them, and are not in " + ctx_.stream.table;
      began_late_.clear();
      finish_writing();
      if (stop_requested()) {  // read but not planned: nothing to undo
        report_.stopped = true;
        break;
      }
      auto planning = std::chrono::steady_clock::now();
      for (const auto& [p, last] : batch->last_read) last_read_[p] = last;
      batches.plan(kafka_input(start, batch_end, data_loss, last_read_));
      batch->report.durations_ms["walCommit"] = ms_since(planning);
      writing_batch = std::move(batch);
      writing = std::async(std::launch::async, [this, b = writing_batch.get()] {
        // Reading is the longer half of a batch; the writer has time to spare, so the reader
        // (and librdkafka's fetcher) get the cores first.
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
        write_batch(*b);
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
  // The offsets to read up to now, for every partition; fills `start` for new partitions. Offsets
  // that went back or vanished are refused, or with fail_on_data_loss = false, skipped: `start`
  // moves to the earliest offset there and `data_loss` gets one entry per partition.
  // With `check_positions`, a partition's position is kept only while the record the stream read
  // last there is still the one at its offset: other records there mean the topic was deleted and
  // created again (or rewritten), which is refused or, with fail_on_data_loss = false, read from
  // its start as a gap ("recreated").
  Offsets end_offsets(Offsets& start, bool first_run, std::vector<DataLoss>& data_loss,
                      const std::set<int32_t>* only = nullptr, bool check_positions = false) {
    auto marks = reader_->watermarks();
    if (only)
      for (auto it = marks.begin(); it != marks.end();) it = only->count(it->first) ? std::next(it) : marks.erase(it);
    std::string recreated = check_positions ? records_replaced(start, marks) : "";
    Offsets end;
    std::string went_back, aged_out;
    for (const auto& [p, w] : marks) {
      auto known = start.find(p);
      if (known == start.end()) {
        // A partition never read: from the beginning (a new partition, or the first run).
        bool at_latest = first_run && source_.start_at_latest;
        start[p] = at_latest ? w.high : w.low;
        // The beginning may already be gone; that loss is not this stream's doing, but say so.
        if (!at_latest && w.low > 0)
          began_late_ += std::string(began_late_.empty() ? "" : "; ") + "partition " + std::to_string(p) + " of " +
                         source_.topic + " begins at offset " + std::to_string(w.low) + ", not 0";
      } else if (w.high < known->second) {
        went_back += "\n  partition " + std::to_string(p) + ": from offset " + std::to_string(known->second) +
                     " back to " + std::to_string(w.high);
        data_loss.push_back({p, known->second, w.low, "went back"});
        known->second = w.low;
        last_read_.erase(p);
      } else if (replaced_.count(p)) {
        data_loss.push_back({p, known->second, w.low, "recreated"});
        known->second = w.low;
        last_read_.erase(p);
      } else if (w.low > known->second) {
        aged_out += "\n  partition " + std::to_string(p) + ": " +
                    (w.low - 1 == known->second ? "offset " + std::to_string(known->second) + " is gone"
                                                : "offsets " + std::to_string(known->second) + " to " +
                                                      std::to_string(w.low - 1) + " are gone") +
                    " (earliest now " + std::to_string(w.low) + ")";
        data_loss.push_back({p, known->second, w.low, "aged out"});
        known->second = w.low;
        last_read_.erase(p);
      }
      end[p] = w.high;
    }
    for (auto it = start.begin(); it != start.end();) {
      if (marks.count(it->first)) {
        ++it;
        continue;
      }
      went_back += "\n  partition " + std::to_string(it->first) + " no longer exists (it was read up to offset " +
                   std::to_string(it->second) + ")";
      data_loss.push_back({it->first, it->second, std::nullopt, "partition gone"});
      last_read_.erase(it->first);
      it = start.erase(it);
    }
    replaced_.clear();
    if (!source_.fail_on_data_loss) return end;
    if (!recreated.empty())
      throw Error("topic " + source_.topic + " was recreated or rewritten: the records stream " + ctx_.stream.name +
                  " read last are not the ones at their offsets now:" + recreated +
                  "\nThe topic was deleted and created again (a restarted embedded broker does that), or points at "
                  "another cluster; its offsets started over, and reading on from the old positions would skip the "
                  "new records before them. Nothing was read. To read the new topic from its start and keep the "
                  "table, set fail_on_data_loss = false in [sources." + source_.name +
                  "] (the gap is recorded and check shows it); or start the stream over with a new checkpoint "
                  "(delete " + ctx_.pipeline.checkpoint_path(ctx_.stream.name) + ") and a new table.");
    if (!went_back.empty())
      throw Error("topic " + source_.topic + " went back: the offsets stream " + ctx_.stream.name +
                  " has read are no longer there:" + went_back +
                  "\nThe topic was deleted and created again, or points at another cluster. Nothing was read. "
                  "To read the new topic from its start and keep the table, set fail_on_data_loss = false in [sources." +
                  source_.name + "] (the gap is recorded and check shows it); or start the stream over with a new "
                  "checkpoint (delete " + ctx_.pipeline.checkpoint_path(ctx_.stream.name) + ") and a new table.");
    if (!aged_out.empty())
      throw Error("records of topic " + source_.topic + " were deleted before stream " + ctx_.stream.name +
                  " read them (retention):" + aged_out +
                  "\nNothing was read. Those records are lost to this stream; to go on from the earliest offsets "
                  "still there, set fail_on_data_loss = false in [sources." + source_.name +
                  "] (the gap is recorded and check shows it).");
    return end;
  }

  std::string began_late_;  // partitions first read past offset 0, told under the next batch's line

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

  // Reads again the last record read in each partition that still holds its offset, and returns
  // one line per partition where another record (or none) is there now; those partitions go in
  // replaced_ for end_offsets. A partition that went back past the offset is end_offsets' own
  // case, and one whose record aged out cannot be told apart: both are left alone.
  std::string records_replaced(const Offsets& start, const std::map<int32_t, Watermarks>& marks) {
    std::vector<PartitionRange> ranges;
    for (const auto& [p, last] : last_read_) {
      auto w = marks.find(p);
      auto known = start.find(p);
      if (w == marks.end() || known == start.end() || w->second.high < known->second) continue;
      if (last.offset >= w->second.low && last.offset < w->second.high) ranges.push_back({p, last.offset, last.offset + 1});
    }
    if (ranges.empty()) return "";
    LastRecords now;
    reader_->read(ranges, [&](const KafkaRecord& r) { now.keep(r); });
    std::map<int32_t, LastRead> found = now.fingerprints();
    std::string lines;
    for (const auto& r : ranges) {
      const LastRead& then = last_read_.at(r.partition);
      auto there = found.find(r.partition);
      if (there != found.end() && there->second.fingerprint == then.fingerprint) continue;
      replaced_.insert(r.partition);
      lines += changed_record_line(r.partition, then, there == found.end() ? nullptr : &there->second);
    }
    return lines;
  }

  // "\n  partition P, offset O: read <then>; now <now>" for a refusal's list; `now` is null when no
  // record is there, and says its own offset when it is another than `then`'s.
  static std::string changed_record_line(int32_t partition, const LastRead& then, const LastRead* now) {
    auto describe = [](const LastRead& record) {
      return "a record of " + (record.timestamp_ms >= 0 ? utc_time_ms(record.timestamp_ms) : std::string("no timestamp")) +
             " (fingerprint " + record.fingerprint + ")";
    };
    std::string line = "\n  partition " + std::to_string(partition) + ", offset " + std::to_string(then.offset) +
                       ": read " + describe(then) + "; now ";
    if (!now) return line + "no record is there";
    line += describe(*now);
    if (now->offset != then.offset) line += " at offset " + std::to_string(now->offset);
    return line;
  }

  // A replayed batch must read what its plan saw: the same last record in every partition it read.
  void refuse_if_replay_differs(int64_t batch_id, const std::map<int32_t, LastRead>& read_now,
                                const KafkaInput& planned) {
    std::string lines;
    for (const auto& [p, range] : planned.partitions) {
      auto then = planned.last_read.find(p);
      if (range.end <= range.start || then == planned.last_read.end() || then->second.offset < range.start) continue;
      auto now = read_now.find(p);
      if (now != read_now.end() && now->second.offset == then->second.offset &&
          now->second.fingerprint == then->second.fingerprint)
        continue;
      lines += changed_record_line(p, then->second, now == read_now.end() ? nullptr : &now->second);
    }
    if (lines.empty()) return;
    throw Error("topic " + source_.topic + " was recreated or rewritten after stream " + ctx_.stream.name +
                " planned batch " + std::to_string(batch_id) + " and before it was committed: reading its offsets "
                "again gives other records:" + lines +
                "\nNothing was written. The batch cannot be replayed as planned; start the stream over with a new "
                "checkpoint (delete " + ctx_.pipeline.checkpoint_path(ctx_.stream.name) + ") and a new table.");
  }

  // With a target latency, a batch takes what arrives within half of it after the last batch took
  // its input (that one is written meanwhile): fewer, larger batches, each input committed in
  // time. A batch after a quiet spell does not wait. True when a stop was requested meanwhile.
  bool wait_for_the_pace() {
    if (ctx_.batch_pace.count() == 0 || !ctx_.kept) return stop_requested();
    double left =
        std::chrono::duration<double>(ctx_.kept->input_taken_at + ctx_.batch_pace - std::chrono::steady_clock::now()).count();
    return left > 0 ? sleep_unless_stopped(left) : stop_requested();
  }

  // Waits up to wait_for_records_ms, in slices so that a stop request ends the wait soon.
  void wait_for_records(const Offsets& next) {
    constexpr int kSliceMs = 100;
    for (int waited = 0; waited < ctx_.wait_for_records_ms && !stop_requested(); waited += kSliceMs)
      if (reader_->wait_for_records(next, std::min(kSliceMs, ctx_.wait_for_records_ms - waited))) return;
  }

  // A batch read from Kafka into its DuckDB connection, to be written.
  struct Batch {
    int64_t id;
    Offsets start, end;
    std::vector<DataLoss> data_loss;
    std::map<int32_t, LastRead> last_read;  // the last record read per partition, of those it read
    std::unique_ptr<IngestBatch> records;
    sql::Connection& con;
    BatchReport report;
    std::chrono::steady_clock::time_point started;
    std::chrono::steady_clock::time_point processing;  // when the writing began
    std::optional<int64_t> oldest_timestamp_ms;        // the oldest Kafka timestamp read, if any
    std::map<int32_t, OffsetRange> worker_ranges;      // a worker's: the partitions it commits, and their ranges

    // The oldest record's wait for its commit, told once the batch is committed.
    void tell_input_wait() {
      if (oldest_timestamp_ms) report.input_wait_ms = std::max<int64_t>(0, wall_clock_us() / 1000 - *oldest_timestamp_ms);
    }
  };

  std::unique_ptr<Batch> read_batch(int64_t id, const Offsets& start, const Offsets& end,
                                    const std::vector<DataLoss>& data_loss, bool replay, sql::Connection& con) {
    CpuScope cpu_scope("ingest.read_batch");
    auto batch = std::unique_ptr<Batch>(new Batch{id, start, end, data_loss, {}, nullptr, con, {}, {}, {}, {}, {}});
    batch->started = std::chrono::steady_clock::now();
    BatchReport& report = batch->report;
    report.batch_id = id;
    report.replayed = replay;
    report.started_at_us = wall_clock_us();
    report.start_offset = offsets_json(start);
    report.end_offset = offsets_json(end);
    report.latest_offset = offsets_json(latest_.empty() ? end : latest_);
    report.durations_ms["walCommit"] = 0;
    std::vector<PartitionRange> ranges;
    for (const auto& [p, e] : end) {
      auto s = start.count(p) ? start.at(p) : e;
      if (e > s) ranges.push_back({p, s, e});
    }
    report.description = describe(ranges);

    batch->records = std::make_unique<IngestBatch>(con, source_, writer_schemas_.get());
    IngestBatch& records = *batch->records;
    LastRecords last;
    std::optional<int64_t>& oldest = batch->oldest_timestamp_ms;
    reader_->read(ranges, [&](const KafkaRecord& r) {
      records.add(r);
      last.keep(r);
      if (r.timestamp_ms >= 0 && (!oldest || r.timestamp_ms < *oldest)) oldest = r.timestamp_ms;
    });
    batch->last_read = last.fingerprints();
    report.input_rows = records.records();
    fault_point("after_kafka_read");
    records.finish();
    report.quarantined = records.quarantined();
    report.tombstones = records.tombstones();
    report.output_rows = report.input_rows - report.quarantined - report.tombstones;
    report.durations_ms["getBatch"] = ms_since(batch->started);
    return batch;
  }

  // Writes a read batch (on the writer thread, in a planned run): its quarantine and bronze
  // commits under the stream's txn, each once (a replay skips what is in), or for a worker under a
  // txn per partition it read (rows another owner committed meanwhile are left out); then the
  // consumer group's copy of its offsets.
  void write_batch(Batch& b) {
    b.processing = std::chrono::steady_clock::now();
    BatchReport& batch = b.report;
    CommitRecord record = commit_record(b);
    if (membership_) {
      record.group = membership_->group();
      writer_.commit_per_partition(b.con, *b.records, b.worker_ranges, record, batch);
    } else {
      record.batch_id = b.id;
      writer_.commit(b.con, *b.records, checkpoint_->id(), b.id, record, batch.replayed, batch);
    }
    b.records.reset();  // the batch's tables and memory go before the next batch is read into them
    copy_offsets_to_group(b.end, batch);
    b.tell_input_wait();
    batch.durations_ms["addBatch"] = ms_since(b.processing);
    batch.durations_ms["triggerExecution"] = ms_since(b.started) + batch.durations_ms["walCommit"];
  }

  // The offsets now durable in bronze, copied to the consumer group (a worker's own; with a
  // group.id, a planned run's), so that kafka-consumer-groups and Burrow see the stream's lag. A
  // worker that lost a partition meanwhile leaves it to the new owner. A failure only warns.
  void copy_offsets_to_group(const Offsets& end, BatchReport& batch) {
    try {
      if (membership_) membership_->commit(end);
      else if (has_kafka_property(ctx_.pipeline.kafka, "group.id")) reader_->commit_to_group(end);
    } catch (const Error& e) {
      batch.warning += (batch.warning.empty() ? "" : "\n  warning: ") + std::string(e.what());
    }
  }

  // A worker's run: the partitions the group gave it, each from where the table's txn for it
  // stands, in micro-batches committed with one txn per partition (sinks/partition_commit.h).
  // No plan is needed: a batch that dies uncommitted is read again by whoever owns the
  // partitions next, from the same txns.
  StreamReport run_as_worker() {
    auto started = std::chrono::steady_clock::now();
    report_.worker = worker_name();
    // A plain run ends when the group as a whole has the topic in bronze up to where it was at
    // the start, whichever worker wrote it: a worker that finished its share, or was given none,
    // waits for a rebalance to hand it partitions of one that left. A continuous run's cycle only
    // reads its own share; the next cycle sees the next assignment.
    Offsets topic_end;
    if (!ctx_.continuous)
      for (const auto& [p, w] : reader_->watermarks()) topic_end[p] = w.high;
    auto progress_at = std::chrono::steady_clock::now();
    int64_t behind = -1;
    while (!stop_requested()) {
      std::set<int32_t> held = membership_->held();
      report_.partitions_held = describe_partitions(held);
      bool whole_share = read_share(held);
      if (ctx_.continuous) break;
      if (!whole_share || membership_->held() != held) continue;  // a rebalance: the new share
      int64_t left = behind_topic_end(topic_end);
      if (left == 0) break;
      if (left != behind) {
        behind = left;
        progress_at = std::chrono::steady_clock::now();
      } else if (std::chrono::steady_clock::now() - progress_at > kGroupPatience) {
        report_.partitions_held += " (" + counted(left, "offset", "offsets") + " of other workers' partitions still unread)";
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report_;
  }

  // How long a plain run waits for the group when nothing moves: more than a session timeout
  // (Kafka's default is 45 s), so that a dead worker's partitions come to a live one.
  static constexpr auto kGroupPatience = std::chrono::seconds(90);

  // The offsets of the topic up to `topic_end` not in bronze yet (per-partition txns).
  int64_t behind_topic_end(const Offsets& topic_end) {
    Offsets positions = committed_positions(delta::load_snapshot(bronze_table_), ctx_.stream.name);
    int64_t behind = 0;
    for (const auto& [p, end] : topic_end) {
      auto at = positions.find(p);
      // A partition no worker has read: behind unless it is empty or the stream starts at its end.
      if (at == positions.end()) behind += source_.start_at_latest ? 0 : end;
      else behind += std::max<int64_t>(0, end - at->second);
    }
    return behind;
  }

  // Reads the partitions in `held` from where their txns stand to their ends now. False when a
  // rebalance changed the assignment before it was done.
  bool read_share(const std::set<int32_t>& held) {
    if (held.empty()) return true;
    Offsets start = committed_positions(delta::load_snapshot(bronze_table_), ctx_.stream.name);
    for (auto it = start.begin(); it != start.end();) it = held.count(it->first) ? std::next(it) : start.erase(it);
    std::set<int32_t> never_read;
    for (int32_t p : held)
      if (!start.count(p)) never_read.insert(p);
    std::vector<DataLoss> data_loss;
    Offsets end = end_offsets(start, /*first_run=*/true, data_loss, &held);
    latest_ = end;
    // An empty partition never read starts at 0 whatever the stream's start: there is no start to
    // record (a txn holds the last offset written, and there is none), so it gets no batch of its
    // own, which an idle worker would otherwise plan, find committed and report every cycle.
    for (auto it = never_read.begin(); it != never_read.end();)
      it = start[*it] == 0 && end[*it] == 0 ? never_read.erase(it) : std::next(it);
    auto plans = plan_batches(start, end, source_.max_offsets_per_trigger);
    // A partition's first batch records where it starts (a `latest` start), even with no records;
    // so does the first batch after a loss.
    if (plans.empty() && (!data_loss.empty() || !never_read.empty())) plans.push_back({});
    std::optional<sql::ScopedSetting> one_thread;
    if (!plans.empty()) one_thread.emplace(ctx_.con, "threads", "1");
    for (const auto& ranges : plans) {
      if (stop_requested()) {
        report_.stopped = true;
        return false;
      }
      if (membership_->held() != held) return false;  // a rebalance took or gave partitions
      Offsets batch_end = start;
      for (const auto& r : ranges) batch_end[r.partition] = r.end;
      auto batch = read_batch(-1, start, batch_end, data_loss, false, ctx_.con);
      for (const auto& [p, e] : batch_end)
        if (e > start[p] || never_read.count(p) || !data_loss.empty()) batch->worker_ranges[p] = {start[p], e};
      if (!began_late_.empty())
        batch->report.warning = began_late_ + ": the records before were deleted (retention) before this stream "
                                "first read them, and are not in " + ctx_.stream.table;
      began_late_.clear();
      write_batch(*batch);
      ctx_.finish_batch(report_, batch->report, batch->started);
      never_read.clear();
      data_loss.clear();
      start = batch_end;
    }
    return true;
  }

  // What a batch's commits say of it in commitInfo.lakestream: the stream, the offsets it read
  // and any gap it stepped over.
  CommitRecord commit_record(const Batch& b) const {
    CommitRecord record;
    record.stream = ctx_.stream.name;
    record.kafka = KafkaRead{source_.topic, offset_ranges(b.start, b.end)};
    record.data_loss = b.data_loss;
    return record;
  }

  StreamContext& ctx_;
  const Source& source_;
  std::optional<Checkpoint> checkpoint_;  // none for a worker
  GroupMembership* membership_ = nullptr;  // a worker's group, kept for the process's life
  std::shared_ptr<KafkaReader> reader_;  // kept across the cycles of a continuous run (see kept_or_new_reader)
  BronzeWriter writer_;
  const delta::Table& bronze_table_;
  const delta::Table& quarantine_table_;
  Offsets latest_;  // the end offsets seen when the run started
  std::map<int32_t, LastRead> last_read_;  // per partition, the last record read (as the plans keep it)
  std::set<int32_t> replaced_;  // partitions whose last record read is not there now (records_replaced)
  std::unique_ptr<WriterSchemas> writer_schemas_;  // Avro sources only
  StreamReport report_;
};

}  // namespace

StreamReport run_ingest_stream(StreamContext& ctx) {
  if (ctx.pipeline.find_source(ctx.stream.source)->is_kinesis()) return run_kinesis_ingest(ctx);
  try {
    return IngestRun(ctx).run();
  } catch (...) {
    // Whatever failed, the next cycle reads from the checkpoint with a new consumer.
    if (ctx.kept) ctx.kept->reader.reset();
    throw;
  }
}

}  // namespace lakestream
