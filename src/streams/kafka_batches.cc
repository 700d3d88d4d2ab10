#include "streams/kafka_batches.h"

#include "source/kafka_conf.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log_time.h"

namespace lakestream {

namespace {

std::string describe(const std::vector<PartitionRange>& ranges) {
  std::string text;
  for (const auto& r : ranges) {
    if (!text.empty()) text += " ";
    text += std::to_string(r.partition) + ":" + std::to_string(r.start) + "-" + std::to_string(r.end);
  }
  return text.empty() ? "no records" : "offsets " + text;
}

}  // namespace

KafkaBatches::KafkaBatches(StreamContext& ctx, const Source& source, std::shared_ptr<KafkaReader> reader)
    : ctx_(ctx),
      source_(source),
      reader_(std::move(reader)),
      writer_(ctx.pipeline, ctx.stream, source, ctx.kept ? &ctx.kept->bronze_partition : nullptr),
      positions_(ctx.pipeline, ctx.stream, source) {
  if (source_.format == SourceFormat::Avro)
    writer_schemas_ = std::make_unique<WriterSchemas>(source_, ctx.stream.table, writer_.field_columns());
  report_.stream = ctx.stream.name;
  report_.source = "KafkaV2[Subscribe[" + source_.topic + "]]";
  report_.table = ctx.stream.table;
}

std::unique_ptr<KafkaBatch> KafkaBatches::read(int64_t id, const Offsets& start, const Offsets& end,
                                               const std::vector<DataLoss>& data_loss, bool replay, sql::Connection& con) {
  CpuScope cpu_scope("ingest.read_batch");
  auto batch = std::unique_ptr<KafkaBatch>(new KafkaBatch{id, start, end, data_loss, {}, nullptr, con, {}, {}, {}, {}});
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

void KafkaBatches::write(KafkaBatch& b, const std::string& app_id, GroupMembership* group) {
  PhaseStart processing = PhaseStart::now();
  BatchReport& batch = b.report;
  // What the batch's commits say of it in commitInfo.lakestream: the stream, the offsets it read
  // and any gap it stepped over.
  CommitRecord record;
  record.stream = ctx_.stream.name;
  record.kafka = KafkaRead{source_.topic, offset_ranges(b.start, b.end)};
  record.data_loss = b.data_loss;
  if (group) {
    record.group = group->group();
    writer_.commit_per_partition(b.con, *b.records, b.worker_ranges, record, batch);
  } else {
    record.batch_id = b.id;
    writer_.commit(b.con, *b.records, app_id, b.id, record, batch.replayed, batch);
  }
  b.records.reset();  // the batch's tables and memory go before the next batch is read into them
  // The offsets now durable in bronze, copied to the consumer group (a worker's own; with a
  // group.id, a planned run's), so that kafka-consumer-groups and Burrow see the stream's lag. A
  // worker that lost a partition meanwhile leaves it to the new owner. A failure only warns.
  try {
    if (group) group->commit(b.end);
    else if (has_kafka_property(ctx_.pipeline.kafka, "group.id")) reader_->commit_to_group(b.end);
  } catch (const Error& e) {
    batch.warning += (batch.warning.empty() ? "" : "\n  warning: ") + std::string(e.what());
  }
  // The batch was read before it was planned: its time since `started` holds walCommit already.
  finish_timings(batch, b.oldest_timestamp_ms, processing, b.started);
}

}  // namespace lakestream
