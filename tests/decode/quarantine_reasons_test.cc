// A corpus of bad records, each with the exact reason the quarantine table must show, mixed with
// good ones: every raw record comes out exactly once, good ones with no reason.
#include <gtest/gtest.h>

#include <map>

#include "decode/record_decoder.h"
#include "decode/raw_batch.h"

namespace lakestream {
namespace {

using testing::order_json;
using testing::orders_source;
using testing::RawBatch;

// A good order with one member replaced (or, with `value` empty, removed).
std::string order_with(const std::string& member, const std::string& value) {
  std::map<std::string, std::string> members = {{"order_id", "1001"},
                                                {"customer_id", "\"C01\""},
                                                {"amount", "25.00"},
                                                {"event_time", "\"2026-10-01T09:05:00Z\""}};
  if (value.empty()) members.erase(member);
  else members[member] = value;
  std::string json = "{";
  for (const auto& [name, text] : members) json += (json.size() > 1 ? "," : "") + ("\"" + name + "\":" + text);
  return json + "}";
}

struct BadRecord {
  std::optional<std::string> value;
  std::string reason;
  std::optional<std::string> key = "k";
};

std::vector<BadRecord> bad_records() {
  const std::string not_a_timestamp = " is not a timestamp (ISO-8601, e.g. 2026-10-01T09:05:00Z, or milliseconds since the epoch, e.g. 1790845500000)";
  const std::string pad_start = "{\"order_id\":1,\"pad\":\"", pad_end = "\"}";
  std::string one_megabyte = pad_start + std::string((1 << 20) - pad_start.size() - pad_end.size(), 'x') + pad_end;
  return {
      // Before any parsing.
      {"\xff\xfe{\"order_id\":1}", "value is not valid UTF-8 text"},
      {order_json(1), "key is not valid UTF-8 text", std::string("\xc3\x28", 2)},
      {"", "empty value"},
      {std::nullopt, "empty value"},
      {one_megabyte, "value is 1048576 bytes, over max_value_bytes = 65536"},
      // The document.
      {"{\"order_id\":1001,", "not valid JSON"},
      {"order 1001 placed", "not valid JSON"},
      {"   ", "not valid JSON"},
      {"[1,2,3]", "not a JSON object"},
      {"\"just text\"", "not a JSON object"},
      {"42", "not a JSON object"},
      {"null", "not a JSON object"},
      // Required fields.
      {order_with("order_id", ""), "missing required field \"order_id\""},
      {order_with("order_id", "null"), "missing required field \"order_id\""},
      {"{}", "missing required field \"order_id\""},
      // Several problems: the first field in schema order wins.
      {R"({"order_id":1001,"amount":"abc","event_time":"2026-10-01T09:05:00Z"})", "missing required field \"customer_id\""},
      // bigint and int.
      {order_with("order_id", "1.5"), "field \"order_id\": 1.5 is not a bigint"},
      {order_with("order_id", "\"1001\""), "field \"order_id\": \"1001\" is not a bigint"},
      {order_with("order_id", "9223372036854775808"), "field \"order_id\": 9223372036854775808 is not a bigint"},
      {order_with("order_id", "-9223372036854775809"), "field \"order_id\": -9223372036854775809 is not a bigint"},
      {order_with("quantity", "2147483648"), "field \"quantity\": 2147483648 is not an int"},
      {order_with("quantity", "true"), "field \"quantity\": true is not an int"},
      // decimal(18,2).
      {order_with("amount", "\"abc\""), "field \"amount\": \"abc\" is not a decimal(18,2)"},
      {order_with("amount", "25.005"), "field \"amount\": 25.005 is not a decimal(18,2)"},
      {order_with("amount", "\"25.005\""), "field \"amount\": \"25.005\" is not a decimal(18,2)"},
      {order_with("amount", "12345678901234567.5"), "field \"amount\": 12345678901234567.5 is not a decimal(18,2)"},
      {order_with("amount", "1234567890123456789"), "field \"amount\": 1234567890123456789 is not a decimal(18,2)"},
      {order_with("amount", "{\"value\":25}"), "field \"amount\": {\"value\":25} is not a decimal(18,2)"},
      {order_with("amount", "\" 25\""), "field \"amount\": \" 25\" is not a decimal(18,2)"},
      {order_with("amount", "\"1_000\""), "field \"amount\": \"1_000\" is not a decimal(18,2)"},
      // A fraction under an escaped key: its digits cannot be found, so it is not guessed.
      {R"({"order_id":1,"customer_id":"C","\u0061mount":25.5,"event_time":"2026-10-01T09:05:00Z"})",
       "field \"amount\": 25.5 is a number whose exact digits could not be found in the record (is its key "
       "written with escapes?); send it with a plain key, or as a string"},
      {order_with("amount", "\"" + std::string(50, '9') + "\""),
       "field \"amount\": \"" + std::string(36, '9') + "... is not a decimal(18,2)"},
      // timestamp.
      {order_with("event_time", "\"yesterday\""), "field \"event_time\": \"yesterday\"" + not_a_timestamp},
      {order_with("event_time", "1790845500"), "field \"event_time\": 1790845500" + not_a_timestamp},
      {order_with("event_time", "1790845500000.5"), "field \"event_time\": 1790845500000.5" + not_a_timestamp},
      {order_with("event_time", "-1790845500000"), "field \"event_time\": -1790845500000" + not_a_timestamp},
      {order_with("event_time", "17908455000000"), "field \"event_time\": 17908455000000" + not_a_timestamp},
      {order_with("event_time", "\"1790845500000\""), "field \"event_time\": \"1790845500000\"" + not_a_timestamp},
      {order_with("event_time", "\"2026-02-30T09:05:00Z\""), "field \"event_time\": \"2026-02-30T09:05:00Z\"" + not_a_timestamp},
      {order_with("event_time", "\"2026-10-01T09:05:00.123456789Z\""),
       "field \"event_time\": \"2026-10-01T09:05:00.123456789Z\"" + not_a_timestamp},
      {order_with("event_time", "\"2026-10-01T09:05:00 Europe/Paris\""),
       "field \"event_time\": \"2026-10-01T09:05:00 Europe/Paris\"" + not_a_timestamp},
      {order_with("event_time", "\"infinity\""), "field \"event_time\": \"infinity\"" + not_a_timestamp},
      // string, double, boolean.
      {order_with("customer_id", "{\"name\":\"Ann\"}"), "field \"customer_id\": {\"name\":\"Ann\"} is not a string"},
      {order_with("customer_id", "[\"C01\"]"), "field \"customer_id\": [\"C01\"] is not a string"},
      {order_with("price", "\"1.5\""), "field \"price\": \"1.5\" is not a double"},
      {order_with("price", "NaN"), "field \"price\": NaN is not a double"},
      {order_with("gift", "\"yes\""), "field \"gift\": \"yes\" is not a boolean"},
      {order_with("gift", "1"), "field \"gift\": 1 is not a boolean"},
  };
}

TEST(QuarantineReasons, EveryBadRecordHasItsReasonAndEveryRecordComesOutOnce) {
  sql::Database db;
  sql::Connection con(db);
  RawBatch raw(con);
  Source source = orders_source();
  source.max_value_bytes = 65536;

  auto corpus = bad_records();
  ASSERT_GE(corpus.size(), 25u);
  std::map<int64_t, std::string> expected_reason;
  std::vector<int64_t> good;
  for (size_t i = 0; i < corpus.size(); i++) {
    expected_reason[raw.add(corpus[i].value, corpus[i].key)] = corpus[i].reason;
    good.push_back(raw.add(order_json(static_cast<int64_t>(i)), std::to_string(i)));  // a good one after each bad one
  }
  decode_records(con, source, "raw", "decoded");

  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded"), con.scalar_int("SELECT count(*) FROM raw"));
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM (SELECT \"offset\" FROM decoded GROUP BY ALL HAVING count(*) <> 1)"), 0);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM raw r ANTI JOIN decoded d USING (\"offset\")"), 0);

  auto rows = con.query("SELECT \"offset\", reason FROM decoded WHERE reason IS NOT NULL ORDER BY \"offset\"");
  EXPECT_EQ(rows.size(), expected_reason.size());
  for (size_t r = 0; r < rows.size(); r++) {
    int64_t offset = std::stoll(rows.text(r, "offset"));
    ASSERT_TRUE(expected_reason.count(offset)) << "a good record was quarantined at offset " << offset << ": "
                                               << rows.text(r, "reason");
    EXPECT_EQ(rows.text(r, "reason"), expected_reason[offset]) << "offset " << offset;
  }
  for (int64_t offset : good) {
    auto good_row = con.query("SELECT reason, order_id, key FROM decoded WHERE \"offset\" = " + std::to_string(offset));
    ASSERT_EQ(good_row.size(), 1u);
    EXPECT_FALSE(good_row.at(0, "reason").has_value()) << good_row.text(0, "reason");
    EXPECT_EQ(good_row.text(0, "order_id"), good_row.text(0, "key"));
  }
}

TEST(QuarantineReasons, QuarantinedRecordsKeepTheirBytesAndKey) {
  sql::Database db;
  sql::Connection con(db);
  RawBatch raw(con);
  std::string bad_key("\xff\x01", 2);
  int64_t offset = raw.add(std::string("\xff{}", 3), bad_key);
  decode_records(con, orders_source(), "raw", "decoded");
  auto row = con.query("SELECT hex(value) AS value, key, reason FROM decoded WHERE \"offset\" = " +
                       std::to_string(offset));
  ASSERT_EQ(row.size(), 1u);
  EXPECT_EQ(row.text(0, "value"), "FF7B7D");
  EXPECT_EQ(row.text(0, "key"), "\\xFF\\x01");  // not UTF-8: shown escaped, not lost
  EXPECT_EQ(row.text(0, "reason"), "value is not valid UTF-8 text");
}

}  // namespace
}  // namespace lakestream
