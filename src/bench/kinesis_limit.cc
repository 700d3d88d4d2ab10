#include "bench/kinesis_limit.h"

#include <chrono>
#include <map>
#include <thread>

#include "source/kinesis_client.h"

namespace lakestream::bench {

int64_t read_kinesis_to_end(const std::string& endpoint, const std::string& stream) {
  KinesisSettings settings;
  settings.stream = stream;
  settings.endpoint = endpoint;
  KinesisClient client(settings);
  struct Shard {
    std::string iterator;
    std::chrono::steady_clock::time_point next_read_at;
  };
  std::map<std::string, Shard> open;
  for (const auto& shard : client.list_shards())
    open[shard.id] = {client.shard_iterator(shard.id, IteratorStart::TrimHorizon), {}};
  int64_t records = 0;
  // Round the shards, each read once Kinesis's limits allow it again, as the ingest reads them.
  while (!open.empty()) {
    for (auto it = open.begin(); it != open.end();) {
      Shard& shard = it->second;
      std::this_thread::sleep_until(shard.next_read_at);
      auto started = std::chrono::steady_clock::now();
      KinesisRecords got = client.get_records(shard.iterator, 10000);
      shard.next_read_at = started + read_spacing_after(got);
      records += static_cast<int64_t>(got.records.size());
      bool at_tip = got.records.empty() && got.millis_behind_latest == 0;
      if (got.next_iterator.empty() || at_tip) {
        it = open.erase(it);
        continue;
      }
      shard.iterator = got.next_iterator;
      ++it;
    }
  }
  return records;
}

}  // namespace lakestream::bench
