// What the Kinesis tests put and what bronze must then hold: records as other producers write
// them, and bronze's rows derived from the sequence numbers Kinesis gave the producer (an
// independent account: the SDK's answers, not lakestream's reads).
#pragma once

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kinesis/kinesis_fixture.h"
#include "source/kinesis_client.h"  // compare_sequences, shard_number

namespace lakestream::testing {

inline const char* kPipeline = R"([lake]
tables = "lake"
checkpoints = "checkpoints"

[sources.orders]
kinesis = "orders"
endpoint = "@KINESIS@"
max_records_per_trigger = 300
required = ["order_id"]

[sources.orders.schema]
order_id = "bigint"
customer = "string"
amount = "double"
note = "string"
event_time = "timestamp"

[streams.read_orders]
kind = "ingest"
source = "orders"
table = "bronze_orders"
)";

// Records as other producers write them: Python's isoformat times (with and without
// microseconds and offsets), UUIDs for keys, doubles, nulls, text in other scripts; and every
// 97th record one that does not fit (not JSON, a wrong type, the required field missing).
struct Generated {
  nlohmann::json records = nlohmann::json::array();
  std::vector<bool> good;
};

inline Generated generate(int count, int first_id, uint32_t seed) {
  std::mt19937 rng(seed);
  Generated out;
  const char* times[] = {"2026-03-02T09:%02d:%02d", "2026-03-02T09:%02d:%02d.123456", "2026-03-02T09:%02d:%02d+00:00",
                         "2026-03-02 09:%02d:%02d", "2026-03-02T10:%02d:%02d.5+01:00"};
  for (int i = 0; i < count; i++) {
    int id = first_id + i;
    char uuid[40];
    std::snprintf(uuid, sizeof uuid, "%08x-%04x-4%03x-a%03x-%012llx", static_cast<unsigned>(rng()), static_cast<unsigned>(rng() & 0xffff),
                  static_cast<unsigned>(rng() & 0xfff), static_cast<unsigned>(rng() & 0xfff),
                  static_cast<unsigned long long>(rng()) * 65536ULL % 0x1000000000000ULL);
    std::string key = (i % 3 == 0) ? "customer-" + std::to_string(rng() % 20) : uuid;
    if (i % 97 == 96) {
      const char* bad[] = {"not json at all", R"({"order_id": "forty-two"})", R"({"customer": "no id"})"};
      out.records.push_back({{"data", bad[(i / 97) % 3]}, {"key", key}});
      out.good.push_back(false);
      continue;
    }
    char when[64];
    std::snprintf(when, sizeof when, times[i % 5], static_cast<int>(rng() % 60), static_cast<int>(rng() % 60));
    nlohmann::json event = {{"order_id", id}, {"event_time", when}};
    event["customer"] = i % 11 == 0 ? nlohmann::json(nullptr) : nlohmann::json(i % 7 == 0 ? "Zoë 顧客 " + key : key);
    event["amount"] = i % 13 == 0 ? nlohmann::json(nullptr) : nlohmann::json(std::ldexp(static_cast<double>(rng()), -20));
    if (i % 5 == 0) event["note"] = "line one\nline \"two\"";
    out.records.push_back({{"data", event.dump()}, {"key", key}});
    out.good.push_back(true);
  }
  return out;
}

// What bronze must hold, as `partition,offset,kinesis_shard_id,kinesis_sequence_number,order_id`
// CSV lines in that order, and the quarantine as the same lines without order_id: each shard's
// records numbered from 0 in the order of the sequence numbers Kinesis gave the producer, each
// with the shard and the sequence number the producer was told.
struct Expected {
  std::string bronze = "partition,offset,kinesis_shard_id,kinesis_sequence_number,order_id\n";
  std::string quarantine = "partition,offset,kinesis_shard_id,kinesis_sequence_number\n";
};

inline Expected expected_from(const std::vector<PutRecord>& puts, const std::vector<int>& ids, const std::vector<bool>& good) {
  std::map<std::string, std::vector<size_t>> by_shard;
  for (size_t i = 0; i < puts.size(); i++) by_shard[puts[i].shard].push_back(i);
  struct Row {
    int32_t partition;
    int64_t offset;
    size_t i;
  };
  std::vector<Row> rows;
  for (auto& [shard, at] : by_shard) {
    std::sort(at.begin(), at.end(), [&](size_t a, size_t b) { return compare_sequences(puts[a].sequence, puts[b].sequence) < 0; });
    for (size_t n = 0; n < at.size(); n++) rows.push_back({KinesisClient::shard_number(shard), static_cast<int64_t>(n), at[n]});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::tie(a.partition, a.offset) < std::tie(b.partition, b.offset);
  });
  Expected e;
  for (const auto& r : rows) {
    std::string position = std::to_string(r.partition) + "," + std::to_string(r.offset) + "," + puts[r.i].shard + "," +
                           puts[r.i].sequence;
    if (good[r.i]) e.bronze += position + "," + std::to_string(ids[r.i]) + "\n";
    else e.quarantine += position + "\n";
  }
  return e;
}

// The records put so far and where they went, to say what bronze must hold.
struct Sent {
  std::vector<PutRecord> puts;
  std::vector<int> ids;
  std::vector<bool> good;
  int next_id = 1;
  int no_customer = 0, no_amount = 0;  // good records with a null there

  void put(Kinesalite& kinesis, int count, uint32_t seed, bool one_by_one = false) {
    Generated g = generate(count, next_id, seed);
    auto where = kinesis.put("orders", g.records, one_by_one);
    for (int i = 0; i < count; i++) {
      puts.push_back(where[i]);
      ids.push_back(next_id + i);
      good.push_back(g.good[i]);
      if (!g.good[i]) continue;
      auto event = nlohmann::json::parse(g.records[i]["data"].get<std::string>());
      no_customer += event["customer"].is_null();
      no_amount += event["amount"].is_null();
    }
    next_id += count;
  }
  int good_count() const { return static_cast<int>(std::count(good.begin(), good.end(), true)); }
  Expected expected() const { return expected_from(puts, ids, good); }
};

inline void expect_bronze_holds(PipelineFixture& f, const Sent& sent) {
  Expected e = sent.expected();
  const std::string position = "partition, \"offset\", kinesis_shard_id, kinesis_sequence_number";
  EXPECT_EQ(f.query("SELECT " + position + ", order_id FROM bronze_orders ORDER BY partition, \"offset\""), e.bronze);
  EXPECT_EQ(f.query("SELECT " + position + " FROM bronze_orders_quarantine ORDER BY partition, \"offset\""), e.quarantine);
}
inline void expect_bronze_holds(KinesisFixture& f, const Sent& sent) { expect_bronze_holds(f.pipeline(), sent); }

// Of bronze's rows of each partition key, ordered as the stream wrote them (batch, then number in
// the shard), how many come before a row put earlier (order ids grow in put order).
inline std::string out_of_order_sql() {
  return "SELECT count(*) AS out_of_order FROM (SELECT order_id, lag(order_id) OVER (PARTITION BY key ORDER BY _batch_id, "
         "\"offset\") AS before FROM bronze_orders) WHERE before > order_id";
}

inline void run_ok(PipelineFixture& f) {
  CommandResult r = f.lakestream("run");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}
inline void run_ok(KinesisFixture& f) { run_ok(f.pipeline()); }

}  // namespace lakestream::testing
