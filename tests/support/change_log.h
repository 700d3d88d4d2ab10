// A customers table's change log as Debezium's Postgres connector writes it (JSON envelopes),
// generated, and its replay: per key the newest change by lsn, absent when it is a delete. The
// replay is the tests' own, sharing nothing with the latest stream or check.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace lakestream::testing {

// A pipeline of source customers (its settings after the topic: `source_settings`), its bronze,
// and silver with deletes ordered by lsn.
inline std::string change_log_pipeline(const std::string& source_settings) {
  return "[kafka]\nbootstrap = \"@BOOTSTRAP@\"\n\n[sources.customers]\n" + source_settings + R"(
[streams.read_customers]
kind = "ingest"
source = "customers"
table = "bronze_customers"

[streams.customers]
kind = "latest"
from = "bronze_customers"
table = "customers"
key = "id"
order_by = "_source_lsn"
deletes = "_op = 'd'"
entity = "customer"
)";
}

// The JSON change events of the customers table (Change below).
inline std::string change_log_pipeline() {
  return change_log_pipeline("envelope = \"debezium\"\n[sources.customers.schema]\nid = \"bigint\"\nname = \"string\"\n"
                             "balance = \"double\"\n");
}

struct Change {
  char op = 'c';
  int64_t id = 0;
  std::string name;  // as JSON text, escapes and all
  double balance = 0;
  int64_t lsn = 0;
  bool wrapped = false;  // {"schema": ..., "payload": ...}, as the JsonConverter's schemas.enable=true writes it
};

inline std::string change_row_json(const Change& c) {
  return "{\"id\":" + std::to_string(c.id) + ",\"name\":\"" + c.name + "\",\"balance\":" + std::to_string(c.balance) + "}";
}

// One change event; a delete's before holds the key only (Postgres' default REPLICA IDENTITY).
inline std::string change_event_json(const Change& c) {
  std::string before = c.op == 'd' ? "{\"id\":" + std::to_string(c.id) + ",\"name\":null,\"balance\":null}"
                       : c.op == 'u' ? change_row_json(c)
                                     : "null";
  std::string after = c.op == 'd' ? "null" : change_row_json(c);
  std::string payload = "{\"before\":" + before + ",\"after\":" + after +
                        ",\"source\":{\"version\":\"2.7.0.Final\",\"connector\":\"postgresql\",\"name\":\"shop\","
                        "\"ts_ms\":" + std::to_string(1790845500000 + c.lsn) + ",\"db\":\"shop\",\"schema\":\"public\","
                        "\"table\":\"customers\",\"txId\":" + std::to_string(700 + c.lsn) + ",\"lsn\":" +
                        std::to_string(c.lsn) + "},\"op\":\"" + std::string(1, c.op) + "\",\"ts_ms\":" +
                        std::to_string(1790845501000 + c.lsn) + ",\"transaction\":null}";
  if (!c.wrapped) return payload;
  return "{\"schema\":{\"type\":\"struct\",\"name\":\"shop.public.customers.Envelope\",\"optional\":false},\"payload\":" +
         payload + "}";
}

// The database's change log in commit (lsn) order: keys created (or read by the snapshot),
// updated, deleted and created again; names with JSON escapes now and then.
inline std::vector<Change> generated_change_log(uint32_t seed, int changes, int keys) {
  std::mt19937 random(seed);
  auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
  const char* names[] = {"Ada", "Grace", "Z\\u00fcrich", "Alan", "Edsger"};
  std::vector<Change> log;
  std::map<int64_t, bool> exists;
  for (int64_t lsn = 1; lsn <= changes; lsn++) {
    Change c;
    c.id = pick(keys);
    c.lsn = lsn * 10;
    c.name = names[pick(5)];
    c.balance = pick(400) / 4.0;
    c.wrapped = pick(3) == 0;
    c.op = !exists[c.id] ? (pick(4) == 0 ? 'r' : 'c') : pick(3) == 0 ? 'd' : 'u';
    exists[c.id] = c.op != 'd';
    log.push_back(c);
  }
  return log;
}

// The log as delivered: out of order (partitions fall behind each other), `resends` sent twice.
inline std::vector<Change> delivered(std::vector<Change> log, int resends, uint32_t seed) {
  std::mt19937 random(seed);
  size_t n = log.size();
  for (int i = 0; i < resends; i++) log.push_back(log[random() % n]);
  std::shuffle(log.begin(), log.end(), random);
  return log;
}

// The replay as `select id, name, cents from customers order by id` prints it (CSV).
inline std::string replayed(const std::vector<Change>& log) {
  std::map<int64_t, Change> newest;
  for (const auto& c : log) {
    auto it = newest.find(c.id);
    if (it == newest.end() || c.lsn > it->second.lsn) newest[c.id] = c;
  }
  std::string csv = "id,name,cents\n";
  for (const auto& [id, c] : newest) {
    if (c.op == 'd') continue;
    std::string name = c.name;
    auto escape = name.find("\\u00fc");
    if (escape != std::string::npos) name.replace(escape, 6, "\xc3\xbc");
    csv += std::to_string(id) + "," + name + "," + std::to_string(std::llround(c.balance * 100)) + "\n";
  }
  return csv;
}

inline const char* kSilverCustomersSql = "select id, name, round(balance * 100)::BIGINT as cents from customers order by id";

// deletes_retention's rules (lsn units), one batch (a run's changes) at a time: per key the batch's newest change;
// the remembered deletes take a newer delete and drop on a newer other change, then forget those
// older than the batch's newest change minus the retention whose key the batch does not change;
// silver takes a key's change when it is newer than the row and no remembered delete is newer.
struct RetentionModel {
  int64_t retention = 0;
  std::map<int64_t, Change> silver, deleted;

  void batch(const std::vector<Change>& changes) {
    std::map<int64_t, Change> newest;
    int64_t high = 0;
    for (const auto& c : changes) {
      high = std::max(high, c.lsn);
      auto it = newest.find(c.id);
      if (it == newest.end() || c.lsn > it->second.lsn) newest[c.id] = c;
    }
    for (const auto& [id, c] : newest) {
      auto d = deleted.find(id);
      if (d != deleted.end() && d->second.lsn >= c.lsn) continue;
      if (c.op == 'd') deleted[id] = c;
      else if (d != deleted.end()) deleted.erase(d);
    }
    for (auto it = deleted.begin(); it != deleted.end();)
      it = !newest.count(it->first) && it->second.lsn < high - retention ? deleted.erase(it) : std::next(it);
    for (const auto& [id, c] : newest) {
      auto d = deleted.find(id);
      if (c.op != 'd' && d != deleted.end() && d->second.lsn > c.lsn) continue;
      auto row = silver.find(id);
      if (row != silver.end() && row->second.lsn >= c.lsn) continue;
      if (c.op == 'd') silver.erase(id);
      else silver[id] = c;
    }
  }

  std::string silver_csv() const {
    std::vector<Change> rows;
    for (const auto& [id, c] : silver) rows.push_back(c);
    return replayed(rows);
  }
  std::string deleted_ids() const {
    std::string csv = "id\n";
    for (const auto& [id, c] : deleted) csv += std::to_string(id) + "\n";
    return csv;
  }
};

}  // namespace lakestream::testing
