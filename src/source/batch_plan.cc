// Proportional micro-batch planning (largest-remainder apportionment of the per-batch cap).
#include "source/batch_plan.h"

#include <algorithm>

namespace lakestream {

std::vector<std::vector<PartitionRange>> plan_batches(const std::map<int32_t, int64_t>& start,
                                                      const std::map<int32_t, int64_t>& end,
                                                      int64_t max_per_batch) {
  // Where each partition with a backlog stands now; it advances as batches are planned.
  std::vector<PartitionRange> remaining;
  for (const auto& [partition, stop] : end) {
    auto found = start.find(partition);
    int64_t from = found == start.end() ? 0 : found->second;
    if (stop > from) remaining.push_back({partition, from, stop});
  }

  std::vector<std::vector<PartitionRange>> batches;
  for (;;) {
    std::vector<PartitionRange> batch;
    __int128 total = 0;
    for (const auto& r : remaining)
      if (r.size() > 0) total += r.size();
    if (total == 0) break;

    if (max_per_batch <= 0 || total <= max_per_batch) {
      for (const auto& r : remaining)
        if (r.size() > 0) batch.push_back(r);
      batches.push_back(std::move(batch));
      break;
    }

    // One record for every partition with a backlog (progress), then the rest of the cap in
    // proportion to what remains beyond that: floors first, the leftover by largest remainder.
    // 128-bit products because backlog x cap can pass 2^63.
    struct Share {
      size_t index;
      int64_t take;
      __int128 remainder;  // of the exact share, in units of 1/beyond_first
    };
    std::vector<Share> shares;
    for (size_t i = 0; i < remaining.size(); i++)
      if (remaining[i].size() > 0) shares.push_back({i, 1, 0});
    int64_t rest = max_per_batch - static_cast<int64_t>(shares.size());
    __int128 beyond_first = total - static_cast<__int128>(shares.size());
    int64_t used = 0;
    if (rest > 0) {
      for (auto& share : shares) {
        __int128 scaled = static_cast<__int128>(remaining[share.index].size() - 1) * rest;
        share.take += static_cast<int64_t>(scaled / beyond_first);
        share.remainder = scaled % beyond_first;
        used += share.take - 1;
      }
    }
    int64_t leftover = rest - used;
    if (leftover > 0) {
      std::vector<Share*> order;
      for (auto& s : shares) order.push_back(&s);
      std::stable_sort(order.begin(), order.end(), [](const Share* a, const Share* b) {
        return a->remainder > b->remainder;  // stable: ties keep partition order
      });
      for (Share* s : order) {
        if (leftover == 0) break;
        if (s->take < remaining[s->index].size()) {
          s->take++;
          leftover--;
        }
      }
    }
    for (const auto& s : shares) {
      PartitionRange& r = remaining[s.index];
      batch.push_back({r.partition, r.start, r.start + s.take});
      r.start += s.take;
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

}  // namespace lakestream
