#include "bench/cdc_events.h"

#include <string>

namespace lakestream::bench {

namespace {

constexpr int64_t kFeedStartMs = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr int64_t kFirstLsn = 23'000'000'000;

std::string row(int64_t id, uint64_t h) {
  static const char* const kTiers[] = {"free", "pro", "team", "enterprise"};
  return "{\"id\":" + std::to_string(id) + ",\"name\":\"Customer " + std::to_string(id) + "\",\"email\":\"c" +
         std::to_string(id) + "@example.com\",\"tier\":\"" + kTiers[h % 4] + "\",\"balance\":\"" +
         std::to_string((h >> 8) % 100000) + "." + std::to_string(10 + (h >> 40) % 90) + "\"}";
}

}  // namespace

KeyedEvent cdc_event(const CdcFeed& feed, int64_t i) {
  uint64_t h = mix(static_cast<uint64_t>(i) * 2 + 1);
  int64_t id = 1 + static_cast<int64_t>(h % static_cast<uint64_t>(feed.keys));
  double draw = unit(mix(h));
  char op = draw < 0.15 ? 'c' : draw < 0.85 ? 'u' : 'd';
  std::string key_row = "{\"id\":" + std::to_string(id) + ",\"name\":null,\"email\":null,\"tier\":null,\"balance\":null}";
  std::string before = op == 'd' ? key_row : op == 'u' ? row(id, h >> 3) : "null";
  std::string after = op == 'd' ? "null" : row(id, h);
  int64_t ts_ms = kFeedStartMs + i;
  std::string value = "{\"before\":" + before + ",\"after\":" + after +
                      ",\"source\":{\"version\":\"2.7.0.Final\",\"connector\":\"postgresql\",\"name\":\"shop\",\"ts_ms\":" +
                      std::to_string(ts_ms) + ",\"snapshot\":\"false\",\"db\":\"shop\",\"sequence\":null,\"schema\":\"public\","
                      "\"table\":\"customers\",\"txId\":" + std::to_string(1000 + i) + ",\"lsn\":" +
                      std::to_string(kFirstLsn + i * 8) + ",\"xmin\":null},\"op\":\"" + std::string(1, op) +
                      "\",\"ts_ms\":" + std::to_string(ts_ms + 40) + ",\"transaction\":null}";
  return {"{\"id\":" + std::to_string(id) + "}", value};
}

}  // namespace lakestream::bench
