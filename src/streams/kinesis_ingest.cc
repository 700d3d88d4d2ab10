#include "streams/kinesis_ingest.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "checkpoint/checkpoint.h"
#include "source/kinesis_client.h"
#include "source/kafka_reader.h"  // KafkaRecord: a shard's record goes into bronze as a partition's does
#include "streams/bronze_writer.h"
#include "streams/ingest_batch.h"
#include "streams/micro_batches.h"
#include "streams/writer_schemas.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/stop.h"

namespace lakestream {

namespace {

using Shards = std::map<std::string, ShardRead>;

// The most records one GetRecords returns.
constexpr int kMostPerRead = 10000;

std::string describe(const Shards& shards) {
  std::string text;
  for (const auto& [id, read] : shards) {
    if (!read.reads()) continue;
    if (!text.empty()) text += " ";
    text += std::to_string(KinesisClient::shard_number(id)) + ":" + std::to_string(read.start) + "-" +
            std::to_string(read.end);
  }
  return text.empty() ? "no records" : "records " + text;
}

nlohmann::json ordinals_json(const Shards& shards, bool starts) {
  std::map<int32_t, int64_t> offsets;
  for (const auto& [id, read] : shards) offsets[KinesisClient::shard_number(id)] = starts ? read.start : read.end;
  return offsets_json(offsets);
}

// What a continuous run keeps from one cycle to the next: the client (its connection), each
// shard's iterator where the last batch left it, when each shard may be read next (Kinesis's
// limits hold across cycles) and the last shard listing.
struct KinesisKept : KeptStreamState {
  explicit KinesisKept(const KinesisSettings& settings) : client(settings) {}
  KinesisClient client;
  std::map<std::string, std::string> iterators;
  std::map<std::string, std::chrono::steady_clock::time_point> next_read_at;
  std::vector<KinesisShard> listing;
  std::chrono::steady_clock::time_point listed_at;
};

// A listing is asked again after this long (ListShards allows 100 calls a second per stream;
// a continuous run that polls an idle stream needs far fewer).
constexpr auto kListAgainAfter = std::chrono::seconds(1);

// The kept state of a continuous run's stream, made on its first cycle; a plain run's own.
KinesisKept& kept_state(StreamContext& ctx, const Source& source, std::unique_ptr<KinesisKept>& own) {
  if (ctx.kept) {
    if (!ctx.kept->state) ctx.kept->state = std::make_unique<KinesisKept>(source.kinesis);
    if (auto* kept = dynamic_cast<KinesisKept*>(ctx.kept->state.get())) return *kept;
  }
  own = std::make_unique<KinesisKept>(source.kinesis);
  return *own;
}

class KinesisRun {
 public:
  explicit KinesisRun(StreamContext& ctx)
      : ctx_(ctx),
        source_(*ctx.pipeline.find_source(ctx.stream.source)),
        kept_(kept_state(ctx, source_, own_kept_)),
        client_(kept_.client),
        writer_(ctx.pipeline, ctx.stream, source_, ctx.kept ? &ctx.kept->bronze_partition : nullptr),
        checkpoint_(ctx.pipeline, ctx.stream) {
    report_.stream = ctx.stream.name;
    report_.stream_id = checkpoint_.id();
    report_.source = "KinesisSource[" + source_.kinesis.stream + "]";
    report_.table = ctx.stream.table;
    if (source_.format == SourceFormat::Avro)
      writer_schemas_ = std::make_unique<WriterSchemas>(source_, ctx.stream.table, writer_.field_columns());
  }

  StreamReport run() {
    auto started = std::chrono::steady_clock::now();
    int64_t committed = checkpoint_.committed_batch({writer_.bronze()});
    checkpoint_.check_definition(committed >= 0 || checkpoint_.committed_batch({writer_.quarantine()}) >= 0);
    MicroBatches batches(checkpoint_, checkpoint_.last_planned_for(committed, ctx_.stream.name), committed);
    Shards state = batches.last() ? batches.last()->kinesis().shards : Shards{};
    if (const PlannedBatch* unfinished = batches.to_replay()) {
      // A run died after planning this batch: read exactly its records again and commit them.
      auto batch = replay(unfinished->id, unfinished->kinesis());
      write(*batch);
    }
    bool first_ever = !batches.last();
    // A continuous cycle that finds nothing new polls for up to wait_for_records_ms (each shard at
    // most 5 times a second) before it ends, so that a record is read soon after it arrives.
    auto poll_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ctx_.wait_for_records_ms);
    while (!stop_requested()) {
      auto batch = read_new(batches.next_id(), state, first_ever);
      if (!batch && report_.batches.empty() && ctx_.continuous && std::chrono::steady_clock::now() < poll_until) {
        sleep_unless_stopped(0.05);  // (the reads themselves wait for their shard's turn)
        continue;
      }
      if (!batch) break;
      batches.plan(batch->input);
      write(*batch);
      state = batch->input.shards;
      first_ever = false;
      if (batch->caught_up) break;
    }
    report_.stopped = stop_requested();
    batches.forget_old_plans();
    report_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return report_;
  }

 private:
  struct Batch {
    int64_t id = 0;
    KinesisInput input;
    bool caught_up = false;  // every shard was read to its tip (or its end)
    std::unique_ptr<IngestBatch> records;
    BatchReport report;
    std::chrono::steady_clock::time_point started;
    std::optional<int64_t> oldest_arrival_ms;
  };

  std::unique_ptr<Batch> new_batch(int64_t id, bool replay) {
    auto batch = std::make_unique<Batch>();
    batch->id = id;
    batch->started = std::chrono::steady_clock::now();
    batch->report.batch_id = id;
    batch->report.replayed = replay;
    batch->report.started_at_us = wall_clock_us();
    batch->records = std::make_unique<IngestBatch>(ctx_.con, source_, writer_schemas_.get());
    return batch;
  }

  void add(Batch& batch, const std::string& shard, int64_t ordinal, const KinesisRecord& r) {
    KafkaRecord record{KinesisClient::shard_number(shard), ordinal, r.arrival_ms,
                       r.partition_key.data(), r.partition_key.size(), r.data.data(), r.data.size()};
    batch.records->add(record);
    batch.records->add_kinesis_position(record, shard, r.sequence);
    if (r.arrival_ms >= 0 && (!batch.oldest_arrival_ms || r.arrival_ms < *batch.oldest_arrival_ms))
      batch.oldest_arrival_ms = r.arrival_ms;
  }

  // Reads `shard` once from `iterator` when Kinesis's limits allow (read_spacing_after), and says
  // when it may be read next.
  KinesisRecords read_paced(const std::string& shard, const std::string& iterator, int limit) {
    auto& next = kept_.next_read_at[shard];
    auto now = std::chrono::steady_clock::now();
    if (now < next) std::this_thread::sleep_for(next - now);
    auto started = std::chrono::steady_clock::now();
    next = started + kKinesisReadSpacing;  // a refused read counts too
    KinesisRecords got = client_.get_records(iterator, limit);
    next = started + read_spacing_after(got);
    return got;
  }

  // Reads from `iterator` once; an iterator that expired (after 5 minutes) is made again by `renew`.
  KinesisRecords get_records(const std::string& shard, std::string& iterator, int limit,
                             const std::function<std::string()>& renew) {
    try {
      return read_paced(shard, iterator, limit);
    } catch (const KinesisError& e) {
      if (e.code() != "ExpiredIteratorException") throw;
      iterator = renew();
      return read_paced(shard, iterator, limit);
    }
  }

  // The records of planned batch `id` again: per shard, from its first sequence number to its
  // last, which must be the same count of records as planned.
  std::unique_ptr<Batch> replay(int64_t id, const KinesisInput& input) {
    auto batch = new_batch(id, true);
    batch->input = input;
    for (const auto& [shard, read] : input.shards) {
      if (!read.reads()) continue;
      std::string replayed_to;  // the last record taken again: an expired iterator goes on after it
      auto renew = [&, &shard = shard] {
        return replayed_to.empty() ? client_.shard_iterator(shard, IteratorStart::AtSequence, read.first)
                                   : client_.shard_iterator(shard, IteratorStart::AfterSequence, replayed_to);
      };
      std::string iterator;
      try {
        iterator = renew();
      } catch (const KinesisError& e) {
        if (e.code() != "ResourceNotFoundException") throw;
        refuse_replay(id, shard, read, "the shard is gone");
      }
      int64_t ordinal = read.start;
      bool at_last = false;
      while (!at_last) {
        int limit = static_cast<int>(std::min<int64_t>(kMostPerRead, read.end - ordinal));
        KinesisRecords got = get_records(shard, iterator, limit, renew);
        for (const auto& r : got.records) {
          if (ordinal == read.start && r.sequence != read.first) refuse_replay(id, shard, read, "its first record is gone");
          if (ordinal >= read.end) refuse_replay(id, shard, read, "more records lie between its first and last");
          add(*batch, shard, ordinal++, r);
          replayed_to = r.sequence;
          if (r.sequence == read.last) {
            at_last = true;
            break;
          }
        }
        if (!at_last && (got.next_iterator.empty() || (got.records.empty() && got.millis_behind_latest == 0)))
          refuse_replay(id, shard, read, "its last record is not there");
        iterator = got.next_iterator;
      }
      if (ordinal != read.end) refuse_replay(id, shard, read, "fewer records lie between its first and last");
    }
    finish(*batch);
    return batch;
  }

  [[noreturn]] void refuse_replay(int64_t id, const std::string& shard, const ShardRead& read, const std::string& why) {
    throw Error("stream " + ctx_.stream.name + " cannot replay batch " + std::to_string(id) + ": in " + shard + " of " +
                source_.kinesis.stream + ", the records it planned (sequence numbers " + read.first + " to " + read.last +
                ", " + std::to_string(read.end - read.start) + " records) are not there as they were: " + why +
                ". The records aged out (the stream's retention) or the stream was deleted and created again. Nothing "
                "was written. Start the stream over with a new checkpoint (delete " +
                ctx_.pipeline.checkpoint_path(ctx_.stream.name) + ") and a new table.");
  }

  // The next batch: what is new in every shard that may be read now, up to the cap; none when
  // nothing is new and nothing about the shards changed.
  std::unique_ptr<Batch> read_new(int64_t id, const Shards& before, bool first_ever) {
    CpuScope cpu_scope("kinesis.read_batch");
    if (kept_.listing.empty() || std::chrono::steady_clock::now() >= kept_.listed_at + kListAgainAfter) {
      kept_.listing = client_.list_shards();
      kept_.listed_at = std::chrono::steady_clock::now();
    }
    const std::vector<KinesisShard>& listed = kept_.listing;
    Shards shards = before;
    // Shards the stream knew that are gone (expired whole; one read to its end is simply
    // forgotten), and positions a shard cannot go on from: a stream deleted and created again
    // has shards of the same ids whose records start after everything the stream read.
    std::vector<DataLoss> data_loss;
    std::string lost, recreated;
    std::map<std::string, const KinesisShard*> by_id;
    for (const auto& s : listed) by_id[s.id] = &s;
    for (auto it = shards.begin(); it != shards.end();) {
      ShardRead& read = it->second;
      int32_t number = KinesisClient::shard_number(it->first);
      auto listed_shard = by_id.find(it->first);
      if (listed_shard == by_id.end()) {
        if (!read.finished) {
          lost += "\n  " + it->first +
                  (read.position.empty() ? " (never read)" : " (read up to sequence number " + read.position + ")");
          data_loss.push_back({number, read.end, std::nullopt, "partition gone"});
        }
        it = shards.erase(it);
        continue;
      }
      if (!read.position.empty() && compare_sequences(read.position, listed_shard->second->first_sequence) < 0) {
        recreated += "\n  " + it->first + ": read up to sequence number " + read.position +
                     ", but the shard now begins at " + listed_shard->second->first_sequence;
        data_loss.push_back({number, read.end, read.end, "recreated"});
        read.position.clear();  // on from the new shard's start, numbered on
        read.finished = false;
        kept_.iterators.erase(it->first);
      }
      read.start = read.end;  // this batch's range starts where the last one ended
      read.first.clear();
      read.last.clear();
      ++it;
    }
    bool changed = first_ever || !data_loss.empty();
    if (source_.fail_on_data_loss && !recreated.empty())
      throw Error("Kinesis stream " + source_.kinesis.stream + " was deleted and created again: the positions stream " +
                  ctx_.stream.name + " read to are not in its shards:" + recreated +
                  "\nNothing was read. To read the new stream from its start and keep the table, set fail_on_data_loss "
                  "= false in [sources." + source_.name + "] (the gap is recorded and check shows it); or start the "
                  "stream over with a new checkpoint (delete " + ctx_.pipeline.checkpoint_path(ctx_.stream.name) +
                  ") and a new table.");
    if (source_.fail_on_data_loss && !lost.empty())
      throw Error("shards of Kinesis stream " + source_.kinesis.stream + " expired before stream " + ctx_.stream.name +
                  " read them to their end (retention):" + lost +
                  "\nNothing was read. Their remaining records are lost to this stream; to go on with the shards "
                  "still there, set fail_on_data_loss = false in [sources." + source_.name + "] (the gap is "
                  "recorded and check shows it).");
    int64_t now_ms = wall_clock_us() / 1000;
    for (const auto& s : listed) {
      if (shards.count(s.id)) continue;
      ShardRead& read = shards[s.id];
      changed = true;
      // The first run starts where starting_position says; shards made later (a split or merge)
      // start at their beginning, as their parents end there.
      if (first_ever && source_.kinesis.start == KinesisSettings::Start::Latest) read.from_ms = now_ms;
      if (first_ever && source_.kinesis.start == KinesisSettings::Start::AtTimestamp)
        read.from_ms = source_.kinesis.start_timestamp_ms;
    }
    // A shard is read once its parents still held are read to their end: a key's records stay in
    // order across a split or merge.
    std::vector<const KinesisShard*> readable;
    for (const auto& s : listed) {
      if (shards[s.id].finished) continue;
      bool parents_done = true;
      for (const std::string* parent : {&s.parent, &s.adjacent_parent})
        if (!parent->empty() && shards.count(*parent) && !shards[*parent].finished) parents_done = false;
      if (parents_done) readable.push_back(&s);
    }
    auto batch = new_batch(id, false);
    int64_t cap = source_.max_offsets_per_trigger;
    // Each shard gets an equal share of the cap, so that a busy shard does not starve the others.
    int64_t share = cap > 0 && !readable.empty() ? std::max<int64_t>(1, cap / static_cast<int64_t>(readable.size())) : 0;
    bool caught_up = true;
    // The shards are read in turns, one read each, so that one shard's wait for Kinesis's limits
    // is spent reading the others.
    struct Reading {
      const std::string& id;
      ShardRead& read;
      std::function<std::string()> renew;
      std::string iterator;
      int64_t taken = 0;
      bool done = false;
    };
    std::vector<Reading> turns;
    for (const KinesisShard* s : readable) {
      ShardRead& read = shards[s->id];
      auto renew = [this, &id = s->id, &read] {
        if (!read.position.empty()) return client_.shard_iterator(id, IteratorStart::AfterSequence, read.position);
        if (read.from_ms) return client_.shard_iterator(id, IteratorStart::AtTimestamp, "", *read.from_ms);
        return client_.shard_iterator(id, IteratorStart::TrimHorizon);
      };
      auto kept = kept_.iterators.find(s->id);
      std::string iterator = kept != kept_.iterators.end() ? kept->second : renew();
      kept_.iterators.erase(s->id);
      turns.push_back({s->id, read, renew, iterator});
    }
    for (size_t left = turns.size(); left > 0;) {
      for (Reading& shard : turns) {
        if (shard.done) continue;
        ShardRead& read = shard.read;
        int limit = static_cast<int>(share > 0 ? std::min<int64_t>(kMostPerRead, share - shard.taken) : kMostPerRead);
        KinesisRecords got = get_records(shard.id, shard.iterator, limit, shard.renew);
        for (const auto& r : got.records) {
          if (!read.reads()) read.first = r.sequence;
          read.last = r.sequence;
          read.position = r.sequence;
          read.from_ms.reset();
          add(*batch, shard.id, read.end++, r);
        }
        shard.taken += static_cast<int64_t>(got.records.size());
        behind_ms_[shard.id] = got.millis_behind_latest;
        if (got.next_iterator.empty()) {  // closed and read to its end: its children are next
          read.finished = true;
          changed = true;
          caught_up = false;
        } else {
          shard.iterator = got.next_iterator;
          if (share > 0 && shard.taken >= share) {  // the cap: the rest is the next batch's
            kept_.iterators[shard.id] = shard.iterator;
            caught_up = false;
          } else if (got.records.empty() && got.millis_behind_latest == 0) {  // at the shard's tip
            kept_.iterators[shard.id] = shard.iterator;
          } else {
            continue;  // more to read in its next turn
          }
        }
        shard.done = true;
        left--;
      }
    }
    batch->input.shards = std::move(shards);
    batch->input.data_loss = std::move(data_loss);
    batch->caught_up = caught_up;
    if (batch->records->records() == 0 && !changed) return nullptr;
    finish(*batch);
    return batch;
  }

  void finish(Batch& batch) {
    IngestBatch& records = *batch.records;
    records.finish();
    BatchReport& report = batch.report;
    report.input_rows = records.records();
    report.quarantined = records.quarantined();
    report.tombstones = records.tombstones();
    report.output_rows = report.input_rows - report.quarantined - report.tombstones;
    report.description = describe(batch.input.shards);
    report.start_offset = ordinals_json(batch.input.shards, true);
    report.end_offset = ordinals_json(batch.input.shards, false);
    report.latest_offset = report.end_offset;
    int64_t behind = 0;
    for (const auto& [shard, ms] : behind_ms_) {
      behind = std::max(behind, ms);
      if (batch.input.shards.count(shard)) report.millis_behind_latest[KinesisClient::shard_number(shard)] = ms;
    }
    if (behind > 0) report.description += " (" + std::to_string(behind) + " ms behind the stream's tip)";
    if (client_.throttled() > throttled_told_) {
      report.warning = "Kinesis throttled " + std::to_string(client_.throttled() - throttled_told_) +
                       " reads; they were waited out (5 reads and 2 MB a second per shard)";
      throttled_told_ = client_.throttled();
    }
    report.durations_ms["getBatch"] = ms_since(batch.started);
    fault_point("after_kafka_read");
  }

  void write(Batch& batch) {
    PhaseStart processing = PhaseStart::now();
    CommitRecord record;
    record.stream = ctx_.stream.name;
    record.batch_id = batch.id;
    OffsetRanges ranges;
    for (const auto& [shard, read] : batch.input.shards)
      ranges[KinesisClient::shard_number(shard)] = {read.start, read.end};
    record.kafka = KafkaRead{source_.kinesis.stream, ranges};
    record.data_loss = batch.input.data_loss;
    writer_.commit(ctx_.con, *batch.records, checkpoint_.id(), batch.id, record, batch.report.replayed, batch.report);
    ctx_.on_committed();
    batch.records.reset();
    finish_timings(batch.report, batch.oldest_arrival_ms, processing, batch.started);
    ctx_.finish_batch(report_, batch.report, batch.started);
  }

  StreamContext& ctx_;
  const Source& source_;
  std::unique_ptr<KinesisKept> own_kept_;  // a plain run's
  KinesisKept& kept_;
  KinesisClient& client_;
  BronzeWriter writer_;
  Checkpoint checkpoint_;
  std::unique_ptr<WriterSchemas> writer_schemas_;  // Avro sources only
  std::map<std::string, int64_t> behind_ms_;  // per shard, MillisBehindLatest of its last read
  int64_t throttled_told_ = 0;
  StreamReport report_;
};

}  // namespace

StreamReport run_kinesis_ingest(StreamContext& ctx) { return KinesisRun(ctx).run(); }

}  // namespace lakestream
