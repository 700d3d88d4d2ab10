#include "streams/topic_positions.h"

#include "source/record_fingerprint.h"
#include "util/error.h"
#include "util/log_time.h"

namespace lakestream {

namespace {

// "\n  partition P, offset O: read <then>; now <now>" for a refusal's list; `now` is null when no
// record is there, and says its own offset when it is another than `then`'s.
std::string changed_record_line(int32_t partition, const LastRead& then, const LastRead* now) {
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

}  // namespace

std::map<int32_t, LastRead> LastRecords::fingerprints() const {
  std::map<int32_t, LastRead> out;
  for (const auto& [p, c] : last_) {
    KafkaRecord record{p, c.offset, c.timestamp_ms, c.has_key ? c.key.data() : nullptr, c.key.size(),
                       c.has_value ? c.value.data() : nullptr, c.value.size()};
    out[p] = {c.offset, c.timestamp_ms, record_fingerprint(record)};
  }
  return out;
}

Offsets TopicPositions::end_offsets(KafkaReader& reader, Offsets& start, bool first_run, std::vector<DataLoss>& data_loss,
                                    const std::set<int32_t>* only, bool check_positions) {
  auto marks = reader.watermarks();
  if (only)
    for (auto it = marks.begin(); it != marks.end();) it = only->count(it->first) ? std::next(it) : marks.erase(it);
  std::string recreated = check_positions ? records_replaced(reader, start, marks) : "";
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
    throw Error("topic " + source_.topic + " was recreated or rewritten: the records stream " + stream_.name +
                " read last are not the ones at their offsets now:" + recreated +
                "\nThe topic was deleted and created again (a restarted embedded broker does that), or points at "
                "another cluster; its offsets started over, and reading on from the old positions would skip the "
                "new records before them. Nothing was read. To read the new topic from its start and keep the "
                "table, set fail_on_data_loss = false in [sources." + source_.name +
                "] (the gap is recorded and check shows it); or start the stream over with a new checkpoint "
                "(delete " + pipeline_.checkpoint_path(stream_.name) + ") and a new table.");
  if (!went_back.empty())
    throw Error("topic " + source_.topic + " went back: the offsets stream " + stream_.name +
                " has read are no longer there:" + went_back +
                "\nThe topic was deleted and created again, or points at another cluster. Nothing was read. "
                "To read the new topic from its start and keep the table, set fail_on_data_loss = false in [sources." +
                source_.name + "] (the gap is recorded and check shows it); or start the stream over with a new "
                "checkpoint (delete " + pipeline_.checkpoint_path(stream_.name) + ") and a new table.");
  if (!aged_out.empty())
    throw Error("records of topic " + source_.topic + " were deleted before stream " + stream_.name +
                " read them (retention):" + aged_out +
                "\nNothing was read. Those records are lost to this stream; to go on from the earliest offsets "
                "still there, set fail_on_data_loss = false in [sources." + source_.name +
                "] (the gap is recorded and check shows it).");
  return end;
}

std::string TopicPositions::take_began_late_warning() {
  if (began_late_.empty()) return "";
  std::string warning = began_late_ + ": the records before were deleted (retention) before this stream first read "
                        "them, and are not in " + stream_.table;
  began_late_.clear();
  return warning;
}

std::string TopicPositions::records_replaced(KafkaReader& reader, const Offsets& start,
                                             const std::map<int32_t, Watermarks>& marks) {
  std::vector<PartitionRange> ranges;
  for (const auto& [p, last] : last_read_) {
    auto w = marks.find(p);
    auto known = start.find(p);
    if (w == marks.end() || known == start.end() || w->second.high < known->second) continue;
    if (last.offset >= w->second.low && last.offset < w->second.high) ranges.push_back({p, last.offset, last.offset + 1});
  }
  if (ranges.empty()) return "";
  LastRecords now;
  reader.read(ranges, [&](const KafkaRecord& r) { now.keep(r); });
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

void TopicPositions::refuse_if_replay_differs(int64_t batch_id, const std::map<int32_t, LastRead>& read_now,
                                              const KafkaInput& planned) const {
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
  throw Error("topic " + source_.topic + " was recreated or rewritten after stream " + stream_.name +
              " planned batch " + std::to_string(batch_id) + " and before it was committed: reading its offsets "
              "again gives other records:" + lines +
              "\nNothing was written. The batch cannot be replayed as planned; start the stream over with a new "
              "checkpoint (delete " + pipeline_.checkpoint_path(stream_.name) + ") and a new table.");
}

}  // namespace lakestream
