// Debezium's change events read out of their envelope: the row of each op, bare or wrapped in
// {schema, payload}, its text as written (every digit kept), the op and source position first;
// tombstones told apart; what is no change event refused with the reason. The row then decodes
// the same on the fast path and through SQL.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "decode/debezium_envelope.h"
#include "decode/fast_decoder.h"
#include "decode/raw_batch.h"
#include "decode/record_decoder.h"
#include "sql/chunk_table.h"

namespace lakestream {
namespace {

std::string row_of(const std::string& value) {
  std::string row, reason;
  EXPECT_EQ(read_change_event(value, row, reason), ChangeEvent::Row) << value << ": " << reason;
  return row;
}

std::string reason_of(const std::string& value) {
  std::string row, reason;
  EXPECT_EQ(read_change_event(value, row, reason), ChangeEvent::Refused) << value;
  return reason;
}

const char* kSource = R"("source":{"version":"2.7.0.Final","connector":"postgresql","ts_ms":1790845500123,"db":"shop","lsn":23000120,"xmin":null})";

TEST(DebeziumEnvelope, EachOpGivesItsRowWithTheOpAndSourcePositionFirst) {
  EXPECT_EQ(row_of(std::string(R"({"before":null,"after":{"id":1,"amount":1234567890123456.78},)") + kSource +
                   R"(,"op":"c","ts_ms":1790845500200,"transaction":null})"),
            R"({"_op":"c","_source_ts_ms":1790845500123,"_source_lsn":23000120,"id":1,"amount":1234567890123456.78})");
  EXPECT_EQ(row_of(std::string(R"({"op":"u","before":{"id":1,"name":"A"},"after":{ "id" : 1, "name":"B\"\u00e9" },)") +
                   kSource + "}"),
            R"({"_op":"u","_source_ts_ms":1790845500123,"_source_lsn":23000120, "id" : 1, "name":"B\"\u00e9" })");
  // A delete's row is before (with Postgres' default REPLICA IDENTITY, the key only).
  EXPECT_EQ(row_of(std::string(R"({"before":{"id":7,"name":null},"after":null,)") + kSource + R"(,"op":"d"})"),
            R"({"_op":"d","_source_ts_ms":1790845500123,"_source_lsn":23000120,"id":7,"name":null})");
  // The JsonConverter with schemas.enable=true; MySQL (no lsn); an empty row.
  EXPECT_EQ(row_of(R"({"schema":{"type":"struct","fields":[]},"payload":{"op":"r","after":{"id":2},"source":{"ts_ms":5,"file":"binlog.000003","pos":154}}})"),
            R"({"_op":"r","_source_ts_ms":5,"_source_lsn":null,"id":2})");
  EXPECT_EQ(row_of(R"({"op":"c","after":{},"source":{"lsn":"00000027:00000758:0003"}})"),
            R"({"_op":"c","_source_ts_ms":null,"_source_lsn":null})");
}

TEST(DebeziumEnvelope, ANullPayloadIsATombstone) {
  std::string row, reason;
  EXPECT_EQ(read_change_event(R"({"schema":null,"payload":null})", row, reason), ChangeEvent::Tombstone);
}

TEST(DebeziumEnvelope, WhatIsNoChangeEventIsRefusedWithTheReason) {
  EXPECT_EQ(reason_of(R"({"op":"c","after":{"id":1})"), "not valid JSON");
  EXPECT_EQ(reason_of(R"({"op":"c","after":{"id":1}} x)"), "not valid JSON");
  EXPECT_EQ(reason_of(R"({"op":"c","after":{"id":"\x"}})"), "not valid JSON");
  EXPECT_EQ(reason_of("[1,2]"), "not a JSON object");
  EXPECT_EQ(reason_of(std::string(600, '[') + std::string(600, ']')), "not a JSON object");
  EXPECT_EQ(reason_of(R"({"id":1,"name":"plain event"})").rfind("not a Debezium change event: no \"op\" member", 0), 0u);
  EXPECT_EQ(reason_of(R"({"payload":[1]})"), "not a Debezium change event: \"payload\" is not an object");
  EXPECT_EQ(reason_of(R"({"op":"x","after":{"id":1}})"), "change event op \"x\" is not c (create), r (read), u (update) or d (delete)");
  EXPECT_EQ(reason_of(R"({"op":"t","before":null,"after":null})").rfind("a truncate (op \"t\") is not applied", 0), 0u);
  EXPECT_EQ(reason_of(R"({"op":"u","before":null,"after":null})"), "change event op \"u\" has no \"after\" row");
  EXPECT_EQ(reason_of(R"({"op":"d","before":null})").rfind("change event op \"d\" has no \"before\" row to take the key from", 0), 0u);
}

// The rows of change events decode the same on the fast path and through SQL (which reads the
// row from the raw table's doc column and keeps the value as sent).
TEST(DebeziumEnvelope, RowsDecodeTheSameOnBothPaths) {
  Source source;
  source.name = "customers";
  source.envelope = SourceEnvelope::Debezium;
  source.schema.fields = {testing::field("id", FieldType::BigInt, true), testing::field("name", FieldType::String),
                          testing::field("balance", FieldType::Decimal, false, 12, 2),
                          testing::field("_op", FieldType::String), testing::field("_source_ts_ms", FieldType::BigInt),
                          testing::field("_source_lsn", FieldType::BigInt)};
  std::vector<std::string> events = {
      std::string(R"({"before":null,"after":{"id":1,"name":"Ada","balance":"12.50"},)") + kSource + R"(,"op":"c"})",
      std::string(R"({"before":{"id":1,"name":"Ada","balance":"12.50"},"after":{"id":1,"name":"Ada L","balance":"99999.99"},)") +
          kSource + R"(,"op":"u"})",
      std::string(R"({"before":{"id":1,"name":null,"balance":null},"after":null,)") + kSource + R"(,"op":"d"})",
      R"({"schema":{},"payload":{"op":"r","after":{"id":3,"name":"Z\u00fcrich","balance":1.5},"source":{"lsn":9}}})",
  };
  sql::Database db;
  sql::Connection con(db);
  con.exec("CREATE TABLE raw (partition INTEGER, \"offset\" BIGINT, kafka_timestamp TIMESTAMPTZ, key BLOB, value BLOB, "
           "utf8 BOOLEAN, doc VARCHAR, envelope_reason VARCHAR)");
  std::vector<std::pair<std::string, std::string>> columns;
  for (const auto& f : source.schema.fields) columns.push_back({f.name, f.duckdb_type()});
  columns.push_back({"offset", "BIGINT"});
  FastDecoder decoder(source);
  int64_t fast_rows = 0;
  {
    sql::ChunkTable fast(con, columns);
    for (size_t i = 0; i < events.size(); i++) {
      std::string row = row_of(events[i]);
      {
        sql::Appender raw(con, "raw");
        raw.append_int32(0);
        raw.append_int64(static_cast<int64_t>(i));
        raw.append_null();
        raw.append_null();
        raw.append_blob(events[i].data(), events[i].size());
        raw.append_bool(true);
        raw.append_text(row);
        raw.append_null();
        raw.end_row();
      }
      if (!decoder.decode(row, fast)) continue;
      fast.set<int64_t>(source.schema.fields.size(), static_cast<int64_t>(i));
      fast.end_row();
      fast_rows++;
    }
    con.exec("CREATE TABLE fast AS SELECT * FROM " + fast.scan_sql());
  }
  // The plain rows take the fast path; the one with an escaped name is left to SQL.
  EXPECT_EQ(fast_rows, 3);
  decode_records(con, source, "raw", "decoded");
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded WHERE reason IS NULL"), 4);
  std::string same;
  for (const auto& f : source.schema.fields)
    same += " AND f." + sql::quote_ident(f.name) + " IS NOT DISTINCT FROM d." + sql::quote_ident(f.name);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM fast f JOIN decoded d USING (\"offset\") WHERE true" + same), 3);
  EXPECT_EQ(con.query("SELECT _op, id, name, balance::VARCHAR AS balance, _source_lsn FROM decoded ORDER BY \"offset\"")
                .text(3, "name"),
            "Z\xc3\xbc" "rich");
  // The value stays as sent: the quarantine would keep the envelope, not the row.
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded WHERE decode(value) LIKE '%\"op\"%'"), 4);
}

}  // namespace
}  // namespace lakestream
