// Good records decode to exactly the values they carry: decimals not rounded, timestamps as UTC
// instants whatever the session's time zone, integers to the ends of their range.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "decode/record_decoder.h"
#include "decode/raw_batch.h"
#include "util/error.h"

namespace lakestream {
namespace {

using testing::order_json;
using testing::orders_source;
using testing::RawBatch;

class TypedValuesTest : public ::testing::Test {
 protected:
  // The decoded row of `offset`, every column as text (timestamps as epoch microseconds).
  sql::Rows row(int64_t offset) {
    auto rows = con.query(
        "SELECT order_id::VARCHAR AS order_id, customer_id, status, amount::VARCHAR AS amount,"
        " epoch_us(event_time)::VARCHAR AS event_time_us, quantity::VARCHAR AS quantity, price::VARCHAR AS price,"
        " gift::VARCHAR AS gift, \"ship to/\"\"city\"\".name\" AS city, key, reason"
        " FROM decoded WHERE \"offset\" = " + std::to_string(offset));
    EXPECT_EQ(rows.size(), 1u) << "offset " << offset;
    return rows;
  }

  sql::Database db;
  sql::Connection con{db};
  RawBatch raw{con};
  Source source = orders_source();
};

constexpr int64_t kNineFiveUtcUs = 1790845500LL * 1000000;  // 2026-10-01T09:05:00Z

TEST_F(TypedValuesTest, OutputHasTheSchemaColumnsThenTheKafkaColumns) {
  raw.add(order_json(1));
  decode_records(con, source, "raw", "decoded");
  auto columns = con.query("SELECT column_name, column_type FROM (DESCRIBE decoded)");
  std::vector<std::pair<std::string, std::string>> expected = {
      {"order_id", "BIGINT"},      {"customer_id", "VARCHAR"},
      {"status", "VARCHAR"},       {"amount", "DECIMAL(18,2)"},
      {"event_time", "TIMESTAMP WITH TIME ZONE"}, {"quantity", "INTEGER"},
      {"price", "DOUBLE"},         {"gift", "BOOLEAN"},
      {"ship to/\"city\".name", "VARCHAR"},
      {"partition", "INTEGER"},    {"offset", "BIGINT"},
      {"kafka_timestamp", "TIMESTAMP WITH TIME ZONE"},
      {"key", "VARCHAR"},          {"value", "BLOB"},
      {"reason", "VARCHAR"}};
  ASSERT_EQ(columns.size(), expected.size());
  for (size_t i = 0; i < expected.size(); i++) {
    EXPECT_EQ(columns.text(i, "column_name"), expected[i].first);
    EXPECT_EQ(columns.text(i, "column_type"), expected[i].second);
  }
}

TEST_F(TypedValuesTest, DecimalsKeepTheirExactValue) {
  // The amount as the event writes it -> the decimal(18,2) it must become.
  std::map<std::string, std::string> amounts = {
      {"25.00", "25.00"},
      {"18.25", "18.25"},
      {"\"18.25\"", "18.25"},
      {"1234567890123456.78", "1234567890123456.78"},  // a double would make it ...456.8
      {"1.5e2", "150.00"},
      {"\"7.5000\"", "7.50"},
  };
  std::map<int64_t, std::string> expected;
  for (const auto& [written, decoded] : amounts)
    expected[raw.add(R"({"order_id":1,"customer_id":"C","amount":)" + written +
                     R"(,"event_time":"2026-10-01T09:05:00Z"})")] = decoded;
  // A nested member with the same key must not be taken for the top-level amount.
  expected[raw.add(R"({"order_id":7,"meta":{"amount":1.11},"customer_id":"C","amount":-0.10,)"
                   R"("event_time":"2026-10-01T09:05:00Z"})")] = "-0.10";
  decode_records(con, source, "raw", "decoded");
  for (const auto& [offset, amount] : expected) EXPECT_EQ(row(offset).text(0, "amount"), amount);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded WHERE reason IS NOT NULL"), 0);
}

TEST_F(TypedValuesTest, DecimalExponentsScalesAndKeysWithAnyCharacters) {
  // The key is not ASCII, so finding the digits in the document must count characters, not bytes.
  Source prices;
  prices.name = "prices";
  prices.schema.fields = {testing::field("Betrag (\xE2\x82\xAC)", FieldType::Decimal, true, 10, 3)};
  auto price = [&](const std::string& text) { return raw.add("{\"note\":\"\xC3\xBC\",\"Betrag (\xE2\x82\xAC)\": " + text + "}"); };
  std::map<int64_t, std::string> expected = {
      {price("1.5e2"), "150.000"},     {price("\"100e-2\""), "1.000"},   {price("-0.10"), "-0.100"},
      {price("2.5000E+1"), "25.000"},  {price("1234567.125"), "1234567.125"}, {price("0.0000"), "0.000"},
  };
  int64_t too_precise = price("1e-4");
  int64_t too_large = price("12345678.5");
  decode_records(con, prices, "raw", "decoded");
  for (const auto& [offset, amount] : expected) {
    auto rows = con.query("SELECT \"Betrag (\xE2\x82\xAC)\"::VARCHAR AS amount, reason FROM decoded WHERE \"offset\" = " +
                          std::to_string(offset));
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows.text(0, "amount"), amount) << rows.text(0, "reason");
  }
  EXPECT_EQ(con.scalar("SELECT reason FROM decoded WHERE \"offset\" = " + std::to_string(too_precise)),
            "field \"Betrag (\xE2\x82\xAC)\": 1e-4 is not a decimal(10,3)");
  EXPECT_EQ(con.scalar("SELECT reason FROM decoded WHERE \"offset\" = " + std::to_string(too_large)),
            "field \"Betrag (\xE2\x82\xAC)\": 12345678.5 is not a decimal(10,3)");
}

TEST_F(TypedValuesTest, ASchemaWithNoFieldsStillChecksTheDocument) {
  Source bare;
  bare.name = "bare";
  int64_t object = raw.add("{\"anything\":[1,2]}");
  int64_t array = raw.add("[1]");
  int64_t broken = raw.add("{");
  decode_records(con, bare, "raw", "decoded");
  auto reason = [&](int64_t offset) {
    return con.scalar("SELECT reason FROM decoded WHERE \"offset\" = " + std::to_string(offset));
  };
  EXPECT_EQ(reason(object), std::nullopt);
  EXPECT_EQ(reason(array), "not a JSON object");
  EXPECT_EQ(reason(broken), "not valid JSON");
}

TEST_F(TypedValuesTest, TimestampsAreUtcInstantsWhateverTheSessionZone) {
  con.exec("SET TimeZone = 'America/New_York'");
  int64_t zulu = raw.add(order_json(1));
  int64_t offset_zone = raw.add(
      R"({"order_id":2,"customer_id":"C","amount":1,"event_time":"2026-10-01T11:05:00+02:00"})");
  int64_t no_zone = raw.add(R"({"order_id":3,"customer_id":"C","amount":1,"event_time":"2026-10-01T09:05:00"})");
  int64_t space_and_fraction = raw.add(
      R"({"order_id":4,"customer_id":"C","amount":1,"event_time":"2026-10-01 04:35:00.250-0430"})");
  int64_t lower_z_nanos = raw.add(
      R"({"order_id":5,"customer_id":"C","amount":1,"event_time":"2026-10-01T09:05:00.123456000z"})");
  decode_records(con, source, "raw", "decoded");
  EXPECT_EQ(row(zulu).text(0, "event_time_us"), std::to_string(kNineFiveUtcUs));
  EXPECT_EQ(row(offset_zone).text(0, "event_time_us"), std::to_string(kNineFiveUtcUs));
  EXPECT_EQ(row(no_zone).text(0, "event_time_us"), std::to_string(kNineFiveUtcUs));
  EXPECT_EQ(row(space_and_fraction).text(0, "event_time_us"), std::to_string(kNineFiveUtcUs + 250000));
  EXPECT_EQ(row(lower_z_nanos).text(0, "event_time_us"), std::to_string(kNineFiveUtcUs + 123456));
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded WHERE reason IS NOT NULL"), 0);
}

// One instant in every form producers write it, against the epoch value computed by hand:
// Python's datetime.isoformat() (+00:00, no fraction at a whole second), Z with and without
// milliseconds, another zone's offset, and Java's and JavaScript's epoch milliseconds.
TEST_F(TypedValuesTest, EveryFormOfTheSameInstantDecodesToIt) {
  con.exec("SET TimeZone = 'Asia/Kolkata'");
  const std::vector<std::pair<std::string, int64_t>> forms = {
      {"\"2026-10-01T09:05:00.250000+00:00\"", kNineFiveUtcUs + 250000},
      {"\"2026-10-01T09:05:00+00:00\"", kNineFiveUtcUs},
      {"\"2026-10-01T09:05:00.250Z\"", kNineFiveUtcUs + 250000},
      {"\"2026-10-01T09:05:00Z\"", kNineFiveUtcUs},
      {"\"2026-10-01T11:05:00.250+02:00\"", kNineFiveUtcUs + 250000},
      {"\"2026-10-01T11:05:00+02:00\"", kNineFiveUtcUs},
      {"1790845500250", kNineFiveUtcUs + 250000},
      {"1790845500000", kNineFiveUtcUs},
      {"1790845500001", kNineFiveUtcUs + 1000},
  };
  std::vector<int64_t> offsets;
  for (const auto& [text, micros] : forms)
    offsets.push_back(raw.add(R"({"order_id":1,"customer_id":"C","amount":1,"event_time":)" + text + "}"));
  decode_records(con, source, "raw", "decoded");
  for (size_t i = 0; i < forms.size(); i++) {
    EXPECT_EQ(row(offsets[i]).text(0, "event_time_us"), std::to_string(forms[i].second)) << forms[i].first;
    EXPECT_EQ(row(offsets[i]).text(0, "reason"), "") << forms[i].first;
  }
}

TEST_F(TypedValuesTest, IntegersReachTheEndsOfTheirRange) {
  int64_t max = raw.add(
      R"({"order_id":9223372036854775807,"customer_id":"C","amount":1,"event_time":"2026-10-01T09:05:00Z","quantity":2147483647})");
  int64_t min = raw.add(
      R"({"order_id":-9223372036854775808,"customer_id":"C","amount":1,"event_time":"2026-10-01T09:05:00Z","quantity":-2147483648})");
  decode_records(con, source, "raw", "decoded");
  EXPECT_EQ(row(max).text(0, "order_id"), "9223372036854775807");
  EXPECT_EQ(row(max).text(0, "quantity"), "2147483647");
  EXPECT_EQ(row(min).text(0, "order_id"), "-9223372036854775808");
  EXPECT_EQ(row(min).text(0, "quantity"), "-2147483648");
  EXPECT_EQ(row(min).text(0, "amount"), "1.00");
}

TEST_F(TypedValuesTest, OtherTypesOptionalFieldsAndExtras) {
  int64_t full = raw.add(order_json(
      1, R"(,"quantity":3,"price":1e300,"gift":true,"ship to/\"city\".name":"Paris","unknown":{"x":[1,2]})"));
  int64_t nulls = raw.add(R"({"order_id":2,"customer_id":"C","status":null,"amount":1,"event_time":"2026-10-01T09:05:00Z",)"
                         R"("price":null,"gift":false,"ship to/\"city\".name":null})");
  int64_t numbers_as_text = raw.add(R"({"order_id":3,"customer_id":42,"status":true,"amount":1,)"
                                    R"("event_time":"2026-10-01T09:05:00Z","price":7,"ship to/\"city\".name":0.1000000000000000055511})");
  int64_t escaped = raw.add(
      R"({"order_id":4,"customer_id":"C","status":"pl\u00e4ced \"quoted\"","amount":1,"event_time":"2026-10-01T09:05:00Z"})");
  decode_records(con, source, "raw", "decoded");
  auto r = row(full);
  EXPECT_EQ(r.text(0, "order_id"), "1");
  EXPECT_EQ(r.text(0, "customer_id"), "C01");
  EXPECT_EQ(r.text(0, "quantity"), "3");
  EXPECT_EQ(r.text(0, "price"), "1e+300");
  EXPECT_EQ(r.text(0, "gift"), "true");
  EXPECT_EQ(r.text(0, "city"), "Paris");
  EXPECT_EQ(r.text(0, "key"), "k");
  EXPECT_FALSE(r.at(0, "reason").has_value());

  r = row(nulls);
  EXPECT_FALSE(r.at(0, "status").has_value());
  EXPECT_FALSE(r.at(0, "price").has_value());
  EXPECT_FALSE(r.at(0, "quantity").has_value());
  EXPECT_FALSE(r.at(0, "city").has_value());
  EXPECT_EQ(r.text(0, "gift"), "false");
  EXPECT_FALSE(r.at(0, "reason").has_value());

  r = row(numbers_as_text);
  EXPECT_EQ(r.text(0, "customer_id"), "42");
  EXPECT_EQ(r.text(0, "status"), "true");
  EXPECT_EQ(r.text(0, "price"), "7.0");
  EXPECT_EQ(r.text(0, "city"), "0.1000000000000000055511");  // its digits, not a double's
  EXPECT_FALSE(r.at(0, "reason").has_value());

  r = row(escaped);
  EXPECT_EQ(r.text(0, "status"), "pl\xC3\xA4" "ced \"quoted\"");
  EXPECT_FALSE(r.at(0, "reason").has_value());
}

TEST_F(TypedValuesTest, ReplacesTheOutputTableOnEveryCall) {
  raw.add(order_json(1));
  decode_records(con, source, "raw", "decoded");
  raw.add(order_json(2));
  decode_records(con, source, "raw", "decoded");
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded"), 2);
}

TEST_F(TypedValuesTest, RefusesAFieldNamedLikeAKafkaColumn) {
  source.schema.fields.push_back(testing::field("Offset", FieldType::BigInt));
  raw.add(order_json(1));
  try {
    decode_records(con, source, "raw", "decoded");
    FAIL() << "a field named offset must be refused";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("field \"Offset\" has the name of a column"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace lakestream
