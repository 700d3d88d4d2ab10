// Planning micro-batches over Kafka offsets: which [start, end) of each partition each batch
// reads, capped as Spark's maxOffsetsPerTrigger caps it. Pure arithmetic, no Kafka.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "table/commit_record.h"  // OffsetRange

namespace lakestream {

// Offsets [start, end) of one partition, with the partition.
struct PartitionRange : OffsetRange {
  int32_t partition = 0;
  PartitionRange() = default;
  PartitionRange(int32_t partition, int64_t start, int64_t end) : OffsetRange{start, end}, partition(partition) {}
};

// Splits the backlog [start, end) of each partition into micro-batches of at most
// `max_per_batch` records in all (0: one batch), each batch's share of a partition in proportion
// to that partition's remaining backlog (at least 1 while it has any), as Spark's
// maxOffsetsPerTrigger does: every partition with a backlog gets 1, the rest of the cap is split
// in proportion to what remains beyond that (floors, then the largest remainders; ties go to the
// lower partition). A batch is full while the backlog lasts, and the same inputs give the same
// plan. When more partitions have a backlog than `max_per_batch`, each still gets 1 record, so
// such a batch exceeds the cap. Partitions with nothing to read (a partition missing from
// `start` reads from 0) are left out of a batch; no batch is empty.
std::vector<std::vector<PartitionRange>> plan_batches(const std::map<int32_t, int64_t>& start,
                                                      const std::map<int32_t, int64_t>& end,
                                                      int64_t max_per_batch);

}  // namespace lakestream
