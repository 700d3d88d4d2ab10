// Where an ingest stream stands in its Kafka topic, and whether the topic still holds what the
// stream read there. A batch's end offsets come with the gaps found on the way (offsets that
// went back, aged out before they were read, a partition gone, a topic deleted and created again
// under the stream: its last record read is not at its offset any more), each refused with what
// to do or, with fail_on_data_loss = false, recorded as a gap. A replayed batch is refused when
// its offsets hold other records than its plan saw.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "checkpoint/planned_batch.h"
#include "pipeline/pipeline.h"
#include "source/kafka_reader.h"

namespace lakestream {

using Offsets = std::map<int32_t, int64_t>;

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
  std::map<int32_t, LastRead> fingerprints() const;

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

class TopicPositions {
 public:
  TopicPositions(const Pipeline& pipeline, const Stream& stream, const Source& source)
      : pipeline_(pipeline), stream_(stream), source_(source) {}

  // The last record read in each partition, as the plans keep it: the newest plan's at the start
  // of a run, then each batch's as it is planned.
  const std::map<int32_t, LastRead>& last_read() const { return last_read_; }
  void start_from(const std::map<int32_t, LastRead>& planned) { last_read_ = planned; }
  void read(const std::map<int32_t, LastRead>& batch_last_read) {
    for (const auto& [p, last] : batch_last_read) last_read_[p] = last;
  }

  // The offsets to read up to now, for every partition (of `only`, when given); fills `start` for
  // new partitions. Offsets that went back or vanished are refused, or with fail_on_data_loss =
  // false, skipped: `start` moves to the earliest offset there and `data_loss` gets one entry per
  // partition. With `check_positions`, a partition's position is kept only while the record the
  // stream read last there is still the one at its offset: other records there mean the topic was
  // deleted and created again (or rewritten), which is refused or, with fail_on_data_loss =
  // false, read from its start as a gap ("recreated").
  Offsets end_offsets(KafkaReader& reader, Offsets& start, bool first_run, std::vector<DataLoss>& data_loss,
                      const std::set<int32_t>* only = nullptr, bool check_positions = false);

  // The warning for the next batch when end_offsets found partitions first read past offset 0
  // (their start deleted by retention before the stream read it), then forgotten; "" when none.
  std::string take_began_late_warning();

  // A replayed batch must read what its plan saw: the same last record in every partition it
  // read. Throws Error saying so, and what to do, when `read_now` differs from `planned`.
  void refuse_if_replay_differs(int64_t batch_id, const std::map<int32_t, LastRead>& read_now,
                                const KafkaInput& planned) const;

 private:
  // Reads again the last record read in each partition that still holds its offset, and returns
  // one line per partition where another record (or none) is there now; those partitions go in
  // replaced_ for end_offsets. A partition that went back past the offset is end_offsets' own
  // case, and one whose record aged out cannot be told apart: both are left alone.
  std::string records_replaced(KafkaReader& reader, const Offsets& start, const std::map<int32_t, Watermarks>& marks);

  const Pipeline& pipeline_;
  const Stream& stream_;
  const Source& source_;
  std::map<int32_t, LastRead> last_read_;
  std::set<int32_t> replaced_;  // partitions whose last record read is not there now (records_replaced)
  std::string began_late_;      // partitions first read past offset 0, told under the next batch's line
};

}  // namespace lakestream
