#include "streams/ingest_worker.h"

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "sinks/partition_commit.h"
#include "source/group_membership.h"
#include "source/kafka_reader.h"
#include "streams/kafka_batches.h"
#include "util/plural.h"
#include "util/stop.h"

namespace lakestream {

namespace {

// How long a plain run waits for the group when nothing moves: more than a session timeout
// (Kafka's default is 45 s), so that a dead worker's partitions come to a live one.
constexpr auto kGroupPatience = std::chrono::seconds(90);

class IngestWorker {
 public:
  explicit IngestWorker(StreamContext& ctx)
      : ctx_(ctx),
        source_(*ctx.pipeline.find_source(ctx.stream.source)),
        // The worker's partitions move with the group: a new reader each run or cycle.
        batches_(ctx, source_, std::make_shared<KafkaReader>(ctx.pipeline.kafka, source_.topic, source_.max_offsets_per_trigger)),
        // The group says which partitions are this worker's own; bronze's per-partition txns,
        // where each stands. No checkpoint lock: the workers share the stream.
        membership_(joined_group(ctx.pipeline.kafka, ctx.pipeline.worker_group(ctx.stream), source_.topic)),
        report_(batches_.report()) {
    report_.stream_id = membership_.group();
    report_.worker = worker_name();
  }

  StreamReport run() {
    auto started = std::chrono::steady_clock::now();
    // A plain run ends when the group as a whole has the topic in bronze up to where it was at
    // the start, whichever worker wrote it: a worker that finished its share, or was given none,
    // waits for a rebalance to hand it partitions of one that left. A continuous run's cycle only
    // reads its own share; the next cycle sees the next assignment.
    Offsets topic_end;
    if (!ctx_.continuous)
      for (const auto& [p, w] : batches_.reader().watermarks()) topic_end[p] = w.high;
    auto progress_at = std::chrono::steady_clock::now();
    int64_t behind = -1;
    while (!stop_requested()) {
      std::set<int32_t> held = membership_.held();
      report_.partitions_held = describe_partitions(held);
      bool whole_share = read_share(held);
      if (ctx_.continuous) break;
      if (!whole_share || membership_.held() != held) continue;  // a rebalance: the new share
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

 private:
  // The offsets of the topic up to `topic_end` not in bronze yet (per-partition txns).
  int64_t behind_topic_end(const Offsets& topic_end) {
    Offsets positions = committed_positions(delta::load_snapshot(batches_.writer().bronze()), ctx_.stream.name);
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
    Offsets start = committed_positions(delta::load_snapshot(batches_.writer().bronze()), ctx_.stream.name);
    for (auto it = start.begin(); it != start.end();) it = held.count(it->first) ? std::next(it) : start.erase(it);
    std::set<int32_t> never_read;
    for (int32_t p : held)
      if (!start.count(p)) never_read.insert(p);
    std::vector<DataLoss> data_loss;
    Offsets end = batches_.positions().end_offsets(batches_.reader(), start, /*first_run=*/true, data_loss, &held);
    batches_.saw_latest(end);
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
      if (membership_.held() != held) return false;  // a rebalance took or gave partitions
      Offsets batch_end = start;
      for (const auto& r : ranges) batch_end[r.partition] = r.end;
      auto batch = batches_.read(-1, start, batch_end, data_loss, false, ctx_.con);
      for (const auto& [p, e] : batch_end)
        if (e > start[p] || never_read.count(p) || !data_loss.empty()) batch->worker_ranges[p] = {start[p], e};
      batch->report.warning = batches_.positions().take_began_late_warning();
      batches_.write(*batch, "", &membership_);
      ctx_.on_committed();
      ctx_.finish_batch(report_, batch->report, batch->started);
      never_read.clear();
      data_loss.clear();
      start = batch_end;
    }
    return true;
  }

  StreamContext& ctx_;
  const Source& source_;
  KafkaBatches batches_;
  GroupMembership& membership_;  // kept for the process's life
  StreamReport& report_;
};

}  // namespace

StreamReport run_ingest_worker(StreamContext& ctx) { return IngestWorker(ctx).run(); }

}  // namespace lakestream
