// The fast decoder against the SQL decoder on the same records: every record the fast path
// accepts decodes through SQL too, with no reason and the same value in every column; the plain
// records a topic is made of are accepted; the rest (anything the SQL decoder reads its own way
// or quarantines) is declined.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decode/fast_decoder.h"
#include "decode/raw_batch.h"
#include "decode/record_decoder.h"
#include "sql/chunk_table.h"

namespace lakestream {
namespace {

using testing::order_json;
using testing::orders_source;

// An order with `amount` and `event_time` as given (JSON text).
std::string order_with(const std::string& amount, const std::string& event_time, const std::string& extra = "") {
  return "{\"order_id\":7,\"customer_id\":\"C01\",\"status\":\"placed\",\"amount\":" + amount +
         ",\"event_time\":" + event_time + extra + "}";
}

struct Case {
  std::string json;
  bool accepted;
};

std::vector<Case> cases() {
  const std::string t = "\"2026-10-01T09:05:00Z\"";
  return {
      // Plain records, as topics carry them: accepted.
      {order_json(1), true},
      {order_json(2, ",\"quantity\":3,\"price\":12.5,\"gift\":true"), true},
      {order_json(3, ",\"quantity\":-2147483648,\"price\":3,\"gift\":false"), true},
      {order_json(4, ",\"currency\":\"EUR\",\"channel\":\"web\",\"n\":1.25,\"b\":null,\"t\":true"), true},
      {"  \n{ \"order_id\" : 5 ,\t\"customer_id\":\"Zo\xc3\xab\", \"amount\": 0.5, \"event_time\":" + t + " }\r\n", true},
      {order_with("25", t), true},
      {order_with("25.5", t), true},
      {order_with("25.500", t), true},
      {order_with("\"25.00\"", t), true},  // in a string, as Debezium's decimal.handling.mode=string sends it
      {order_with("\"-3.10\"", t), true},
      {order_with("-3.10", t), true},
      {order_with("-0.00", t), true},
      {order_with("0", t), true},
      {order_with("1234567890123456.78", t), true},
      {order_with("1.5", "\"2026-10-01T09:05:00z\""), true},
      {order_with("1.5", "\"2026-10-01 09:05:00+02:00\""), true},
      {order_with("1.5", "\"2026-10-01T09:05:00-05:30\""), true},
      {order_with("1.5", "\"2026-10-01T09:05:00\""), true},
      {order_with("1.5", "\"2026-10-01T09:05:00.5Z\""), true},
      {order_with("1.5", "\"2026-10-01T09:05:00.123456+00:00\""), true},
      {order_with("1.5", "\"2024-02-29T23:59:59Z\""), true},
      {order_with("1.5", "\"1969-12-31T23:59:59.999999Z\""), true},
      {order_with("1.5", "\"1000-01-01T00:00:00+14:59\""), true},
      {order_with("1.5", "\"9999-12-31T23:59:59.999999-14:00\""), true},
      {order_with("1.5", t, ",\"status\":null"), false},  // status twice
      {"{\"order_id\":8,\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + "}", true},  // status absent
      {"{\"order_id\":8,\"customer_id\":\"C\",\"status\":null,\"amount\":1,\"event_time\":" + t + "}", true},
      {"{\"note\":\"amount\",\"x_amount\":9.99,\"order_id\":9,\"customer_id\":\"C\",\"amount\":1.25,\"event_time\":" +
           t + "}",
       true},
      {order_json(10, ",\"price\":0.1,\"quantity\":0"), true},
      // Declined: the SQL decoder decides (a value, or a reason).
      {order_with("1.005", t), false},
      {order_with("12345678901234567", t), false},
      {order_with("1e2", t), false},
      {order_with("\" 25.00\"", t), false},
      {order_with("\"1e2\"", t), false},
      {order_with("\"\"", t), false},
      {order_with("\"007.5\"", t), false},
      {order_with("1.5", "\"2026-10-01T09:05:00.1234567Z\""), false},
      {order_with("1.5", "\"2023-02-29T09:05:00Z\""), false},
      {order_with("1.5", "\"2026-10-01T24:00:00Z\""), false},
      {order_with("1.5", "\"2026-10-01\""), false},
      {order_with("1.5", "1790845500000"), true},
      {order_with("1.5", "1000000000000"), true},
      {order_with("1.5", "9999999999999"), true},
      {order_with("1.5", "1790845500"), false},
      {order_with("1.5", "17908455000000"), false},
      {order_with("1.5", "1790845500000.0"), false},
      {order_with("1.5", "-1790845500000"), false},
      {order_with("1.5", "1.7908455e12"), false},
      {order_with("1.5", "\"1790845500000\""), false},
      {order_with("1.5", "true"), false},
      {"{\"order_id\":-0,\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":007,\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":9223372036854775807,\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":\"1\",\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":1.0,\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":1,\"customer_id\":12,\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":1,\"customer_id\":\"a\\\"b\",\"amount\":1,\"event_time\":" + t + "}", false},
      {"{\"order_id\":1,\"amount\":1,\"event_time\":" + t + "}", false},  // customer_id required
      {"{\"order_id\":1,\"customer_id\":null,\"amount\":1,\"event_time\":" + t + "}", false},
      {order_json(11, ",\"quantity\":2147483648"), false},
      {order_json(12, ",\"price\":1e3"), false},
      {order_json(13, ",\"gift\":\"true\""), false},
      // Objects and arrays in members no field takes are skipped; a field's name inside them is
      // not the field.
      {order_json(14, ",\"nested\":{\"amount\":2.5}"), true},
      {order_json(15, ",\"list\":[1]"), true},
      {order_json(15, ",\"e\":{},\"f\":[],\"g\":[[],{}],\"h\":{\"a\":{\"b\":[1,-2.5,\"x\",true,false,null]}}"), true},
      {order_json(15, ",\"items\":[{\"sku\":\"A-1\",\"qty\":2,\"price\":12.5},{\"sku\":\"B\",\"qty\":1,\"price\":3}]"), true},
      {"{\"context\":{\"amount\":1.10,\"order_id\":99,\"event_time\":\"x\"},\"order_id\":7,\"customer_id\":\"C\","
       "\"amount\":1.1,\"event_time\":" + t + "}",
       true},
      {"{\"context\":{\"amount\":2.5},\"order_id\":7,\"customer_id\":\"C\",\"amount\":1.25,\"event_time\":" + t + "}",
       true},
      {order_json(15, " , \"s\" : [ 1 , { \"k\" : [ ] } ] "), true},
      // Declined inside them too: escapes, exponents, bad syntax, too deep.
      {order_json(15, ",\"n\":{\"a\":\"x\\\"y\"}"), false},
      {order_json(15, ",\"n\":[1e3]"), false},
      {order_json(15, ",\"n\":[1,]"), false},
      {order_json(15, ",\"n\":{\"a\":1,}"), false},
      {order_json(15, ",\"n\":{\"a\"}"), false},
      {order_json(15, ",\"n\":{1:2}"), false},
      {order_json(15, ",\"n\":[1}"), false},
      {order_json(15, ",\"n\":{\"a\":[1]"), false},
      {order_json(15, ",\"n\":" + std::string(17, '[') + std::string(17, ']')), false},
      {order_json(15, ",\"n\":" + std::string(16, '[') + std::string(16, ']')), true},
      {order_json(15, ",\"customer_id\":{\"a\":1}"), false},  // a field given an object (and twice)
      {"{\"order_id\":7,\"customer_id\":{\"id\":\"C\"},\"amount\":1,\"event_time\":" + t + "}", false},
      {order_json(16, ","), false},
      {order_json(17) + "x", false},
      {order_json(18).substr(1), false},
      {"[1]", false},
      {"{}", false},
      {"{\"order_id\":1,\"customer_id\":\"C\",\"amount\":1,\"event_time\":" + t + ",\"amount\":2}", false},
  };
}

TEST(FastDecoder, AcceptsWhatTheSqlDecoderReadsTheSameAndDeclinesTheRest) {
  sql::Database db;
  sql::Connection con(db);
  Source source = orders_source();
  testing::RawBatch raw(con);
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& f : source.schema.fields) columns.push_back({f.name, f.duckdb_type()});
  columns.push_back({"offset", "BIGINT"});

  FastDecoder decoder(source);
  std::vector<Case> all = cases();
  {
    sql::ChunkTable fast(con, columns);
    for (const auto& c : all) {
      int64_t offset = raw.add(c.json);
      bool accepted = decoder.decode(c.json, fast);
      EXPECT_EQ(accepted, c.accepted) << c.json;
      if (!accepted) continue;
      fast.set<int64_t>(source.schema.fields.size(), offset);
      fast.end_row();
    }
    con.exec("CREATE TABLE fast AS SELECT * FROM " + fast.scan_sql());
  }
  decode_records(con, source, "raw", "decoded");

  int64_t accepted = 0;
  for (const auto& c : all) accepted += c.accepted;
  ASSERT_EQ(con.scalar_int("SELECT count(*) FROM fast"), accepted);
  // Same values, NULLs included, and no reason, for every accepted record.
  std::string same;
  for (const auto& f : source.schema.fields) {
    std::string name = sql::quote_ident(f.name);
    same += " AND f." + name + " IS NOT DISTINCT FROM d." + name;
  }
  auto differing = con.query("SELECT f.\"offset\", d.reason FROM fast f JOIN decoded d USING (\"offset\") WHERE NOT (" +
                             std::string("d.reason IS NULL") + same + ")");
  for (size_t i = 0; i < differing.size(); i++)
    ADD_FAILURE() << "decoded differently: " << all[std::stoi(differing.text(i, "offset"))].json << " (SQL reason: "
                  << differing.text(i, "reason") << ")";
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM fast JOIN decoded USING (\"offset\")"), accepted);
}

// The fast path's own reading of every timestamp form, against values computed by hand (the
// test above compares it with the SQL decoder, which could share a mistake).
TEST(FastDecoder, TimestampFormsAreTheInstantsTheyName) {
  constexpr int64_t kNineFiveUtcUs = 1790845500LL * 1000000;  // 2026-10-01T09:05:00Z
  const std::vector<std::pair<std::string, int64_t>> forms = {
      {"\"2026-10-01T09:05:00.250000+00:00\"", kNineFiveUtcUs + 250000},
      {"\"2026-10-01T09:05:00+00:00\"", kNineFiveUtcUs},
      {"\"2026-10-01T09:05:00.250Z\"", kNineFiveUtcUs + 250000},
      {"\"2026-10-01T09:05:00Z\"", kNineFiveUtcUs},
      {"\"2026-10-01T11:05:00.25+02:00\"", kNineFiveUtcUs + 250000},
      {"\"2026-10-01T04:35:00-04:30\"", kNineFiveUtcUs},
      {"\"2026-10-01 09:05:00\"", kNineFiveUtcUs},
      {"1790845500250", kNineFiveUtcUs + 250000},
      {"1790845500000", kNineFiveUtcUs},
  };
  Source source = orders_source();
  sql::Database db;
  sql::Connection con(db);
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& f : source.schema.fields) columns.push_back({f.name, f.duckdb_type()});
  FastDecoder decoder(source);
  {
    sql::ChunkTable fast(con, columns);
    for (const auto& [text, micros] : forms) {
      EXPECT_TRUE(decoder.decode(order_with("1.5", text), fast)) << text;
      fast.end_row();
    }
    con.exec("CREATE TABLE fast AS SELECT * FROM " + fast.scan_sql());
  }
  auto rows = con.query("SELECT epoch_us(event_time)::VARCHAR AS us FROM fast");
  ASSERT_EQ(rows.size(), forms.size());
  for (size_t i = 0; i < forms.size(); i++) EXPECT_EQ(rows.text(i, "us"), std::to_string(forms[i].second)) << forms[i].first;
}

TEST(FastDecoder, DecimalsWiderThanEighteenDigitsAlwaysTakeTheSqlPath) {
  Source source = orders_source();
  for (auto& f : source.schema.fields)
    if (f.type == FieldType::Decimal) f.precision = 38;
  sql::Database db;
  sql::Connection con(db);
  sql::ChunkTable fast(con, {{"a", "BIGINT"}});
  EXPECT_FALSE(FastDecoder(source).decode(order_json(1), fast));
}

}  // namespace
}  // namespace lakestream
