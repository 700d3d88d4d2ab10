// libFuzzer target: the record decoder on an arbitrary Kafka record value. Every value must give
// exactly one row, good or with a reason; a thrown error, a lost row or a crash is a bug. A value
// the fast decoder accepts must decode through SQL with no reason and the same field values.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "decode/fast_decoder.h"
#include "decode/record_decoder.h"
#include "sql/chunk_table.h"
#include "sql/duckdb.h"
#include "util/utf8.h"

namespace {

lakestream::Source shop_source() {
  lakestream::Source source;
  source.name = source.topic = "orders";
  auto field = [](const char* name, lakestream::FieldType type, bool required) {
    lakestream::Field f;
    f.name = name;
    f.type = type;
    f.required = required;
    return f;
  };
  source.schema.fields = {field("order_id", lakestream::FieldType::BigInt, true),
                          field("status", lakestream::FieldType::String, false),
                          field("amount", lakestream::FieldType::Decimal, false),
                          field("ok", lakestream::FieldType::Boolean, false),
                          field("event_time", lakestream::FieldType::Timestamp, true)};
  source.schema.fields[2].precision = 18;
  source.schema.fields[2].scale = 2;
  source.max_value_bytes = 4096;
  return source;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lakestream::sql::Database db;
  static lakestream::sql::Connection con(db);
  static const lakestream::Source source = shop_source();
  con.exec("CREATE OR REPLACE TEMP TABLE raw (partition INTEGER, \"offset\" BIGINT, kafka_timestamp TIMESTAMPTZ, "
           "key BLOB, value BLOB, utf8 BOOLEAN)");
  {
    lakestream::sql::Appender appender(con, "raw");
    appender.append_int32(0);
    appender.append_int64(7);
    appender.append_null();
    appender.append_null();
    appender.append_blob(reinterpret_cast<const char*>(data), size);
    appender.append_null();  // let the decoder find out whether it is UTF-8
    appender.end_row();
    appender.flush();
  }
  lakestream::decode_records(con, source, "raw", "decoded");
  if (con.scalar_int("SELECT count(*) FROM decoded") != 1) std::abort();

  static const lakestream::FastDecoder fast_decoder(source);
  auto text = reinterpret_cast<const char*>(data);
  if (size == 0 || size > static_cast<size_t>(source.max_value_bytes) || !lakestream::is_valid_utf8(text, size))
    return 0;  // the gate sends these to the SQL decoder
  std::vector<std::pair<std::string, std::string>> columns;
  std::string same;
  for (const auto& f : source.schema.fields) {
    columns.push_back({f.name, f.duckdb_type()});
    std::string name = lakestream::sql::quote_ident(f.name);
    same += " AND f." + name + " IS NOT DISTINCT FROM d." + name;
  }
  lakestream::sql::ChunkTable fast(con, columns);
  if (!fast_decoder.decode(std::string_view(text, size), fast)) return 0;
  fast.end_row();
  if (con.scalar_int("SELECT count(*) FROM " + fast.scan_sql() + " f, decoded d WHERE d.reason IS NULL" + same) != 1)
    std::abort();
  return 0;
}
