// A batch of the size a busy topic delivers decodes in one call, every row accounted for. The
// rate is printed for a human to compare, not asserted (machines differ).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "decode/record_decoder.h"
#include "decode/raw_batch.h"

namespace lakestream {
namespace {

TEST(DecodeThroughput, TwoHundredThousandRecordsInOnePass) {
  sql::Database db;
  sql::Connection con(db);
  testing::RawBatch raw(con);
  constexpr int64_t kRows = 200000;
  // One record in a thousand is bad (a string amount with three decimals).
  con.exec("INSERT INTO raw SELECT i % 3, i, TIMESTAMPTZ '2026-10-01 10:00:00+00' + to_seconds(i), encode(i::VARCHAR),"
           " encode('{\"order_id\":' || i || ',\"customer_id\":\"C' || (i % 97) || '\",\"status\":\"placed\","
           "\"amount\":' || CASE WHEN i % 1000 = 7 THEN '\"1.005\"' ELSE (i % 100000) // 100 || '.' || lpad((i % 100)::VARCHAR, 2, '0') END ||"
           " ',\"event_time\":\"2026-10-01T09:' || lpad((i % 60)::VARCHAR, 2, '0') || ':00Z\",\"quantity\":' || (i % 5) ||"
           " ',\"price\":' || (i % 13) * 0.5 || ',\"gift\":' || (i % 2 = 0) || ',\"note\":\"extra field, ignored\"}'),"
           " true FROM range(" + std::to_string(kRows) + ") t(i)");

  auto started = std::chrono::steady_clock::now();
  decode_records(con, testing::orders_source(), "raw", "decoded");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("decoded %lld records in %.3f s: %.0f records/s\n", static_cast<long long>(kRows), seconds,
              kRows / seconds);

  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded"), kRows);
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded WHERE reason IS NOT NULL"), kRows / 1000)
      << con.scalar("SELECT any_value(reason) FROM decoded WHERE \"offset\" % 1000 <> 7").value_or("");
  EXPECT_EQ(con.scalar_int("SELECT count(*) FROM decoded WHERE reason IS NULL AND"
                           " amount * 100 = \"offset\" % 100000"
                           " AND order_id = \"offset\" AND key = \"offset\"::VARCHAR"),
            kRows - kRows / 1000);
}

}  // namespace
}  // namespace lakestream
