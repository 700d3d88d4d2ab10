// A generated messy order stream, as real shops send them: orders placed and then updated
// (paid, shipped), about 5% of events late by hours, about 2% sent twice, a few that break the
// schema; split into sends, each followed by a run of the streams. Deterministic for a seed.
// Events come about 2 s of event time apart: keep a send under two hours (3,000 events).
#pragma once

#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

namespace lakestream::testing {

struct MessyStream {
  std::vector<std::string> sends;  // JSON lines per send
  int events = 0;                  // lines in all sends, copies included
  int late = 0;
  int sent_twice = 0;
  int bad = 0;
};

inline MessyStream messy_stream(int events, int sends, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> chance(0, 1);
  MessyStream s;
  s.sends.resize(sends);
  const int per_send = (events + sends - 1) / sends;
  const long long base = 1790812800;  // 2026-10-01T00:00:00Z
  long long now = base;
  int next_order = 1;
  auto event_line = [](long long order, const char* status, long long amount_cents, long long t) {
    char time[32];
    std::time_t tt = static_cast<std::time_t>(t);
    std::strftime(time, sizeof time, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&tt));
    char line[256];
    std::snprintf(line, sizeof line,
                  "{\"order_id\":%lld,\"customer_id\":\"C%03lld\",\"status\":\"%s\",\"amount\":%lld.%02lld,"
                  "\"event_time\":\"%s\"}\n",
                  order, order % 389, status, amount_cents / 100, amount_cents % 100, time);
    return std::string(line);
  };
  while (s.events < events) {
    std::string& send = s.sends[std::min<int>(s.events / per_send, sends - 1)];
    now += 1 + static_cast<long long>(rng() % 3);  // about 100k events over three days
    long long t = now;
    if (chance(rng) < 0.05) {
      // Hours behind, so that its hour was written before it came (late by design). A send spans
      // under two hours of event time, so 4 to 7 hours behind is past every open window.
      t -= 3600 * (4 + static_cast<long long>(rng() % 4));
      s.late++;
    }
    std::string line;
    if (chance(rng) < 0.001) {
      line = "{\"order_id\":" + std::to_string(next_order++) + ",\"status\":\"placed\",\"amount\":\"lots\"}\n";
      s.bad++;
    } else if (next_order > 10 && chance(rng) < 0.3) {
      // A status update of a recent order.
      long long order = next_order - 1 - static_cast<long long>(rng() % 10);
      line = event_line(order, chance(rng) < 0.5 ? "paid" : "shipped", (order * 37) % 10000 + 100, t);
    } else {
      long long order = next_order++;
      line = event_line(order, "placed", (order * 37) % 10000 + 100, t);
    }
    send += line;
    s.events++;
    if (chance(rng) < 0.02 && s.events < events) {
      send += line;  // the shop's system sent it again
      s.events++;
      s.sent_twice++;
    }
  }
  return s;
}

}  // namespace lakestream::testing
