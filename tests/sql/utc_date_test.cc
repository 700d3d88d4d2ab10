// The day of an instant without ICU (sql::utc_date_without_icu): the rewritten expression gives
// DuckDB's own date() for every instant, over generated values across the whole range, both
// sides of midnight and of the epoch, NULL and +-infinity; other expressions are left alone.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "sql/duckdb.h"
#include "sql/utc_date.h"

namespace lakestream::sql {
namespace {

TEST(UtcDate, EqualsDuckDbsDateForEveryInstant) {
  Database db;
  Connection con(db);  // TimeZone UTC, as every connection of ours
  con.exec("CREATE TABLE t (\"Event Time\" TIMESTAMPTZ, event_time TIMESTAMPTZ)");
  std::mt19937_64 random(20261001);
  // Years 0001 to 9999, and instants a microsecond either side of a midnight.
  std::uniform_int_distribution<int64_t> any_us(-62135596800LL * 1000000, 253402300799LL * 1000000);
  std::uniform_int_distribution<int64_t> any_day(-719162, 2932896);
  std::string values;
  for (int i = 0; i < 20000; i++) {
    int64_t us = i % 2 ? any_us(random) : any_day(random) * 86400000000LL + (i % 4 == 0 ? -1 : 0);
    values += (values.empty() ? "" : ", ") + std::string("(make_timestamp(") + std::to_string(us) + ")::TIMESTAMPTZ" +
              ", make_timestamp(" + std::to_string(us / 7) + ")::TIMESTAMPTZ)";
  }
  con.exec("INSERT INTO t VALUES " + values);
  con.exec("INSERT INTO t VALUES (NULL, NULL), ('infinity', '-infinity'), ('-infinity', 'infinity'), "
           "('2026-10-01T01:30:00+02:00', '1969-12-31T23:59:59.999999Z'), ('0044-03-15 (BC) 12:00:00+00', "
           "'2026-09-30T23:59:59.999999-00:00')");

  std::vector<std::string> instants = {"Event Time", "EVENT_TIME"};
  for (const std::string& expression : std::vector<std::string>{"date(\"Event Time\")", "DATE ( event_time )", "cast(Event_Time as date)",
                                        "\"event_time\"::DATE", "  \"Event Time\" :: date "}) {
    std::string fast = utc_date_without_icu(expression, instants);
    ASSERT_NE(fast, expression) << "not taken: " << expression;
    EXPECT_EQ(con.scalar_int("SELECT count(*) FROM t WHERE (" + fast + ") IS DISTINCT FROM (" + expression + ")"), 0)
        << expression << " -> " << fast;
    EXPECT_EQ(con.scalar_int("SELECT count(DISTINCT (" + fast + ")) FROM t"),
              con.scalar_int("SELECT count(DISTINCT (" + expression + ")) FROM t"));
  }
}

TEST(UtcDate, LeavesOtherExpressionsAlone) {
  std::vector<std::string> instants = {"event_time"};
  for (const std::string& expression : std::vector<std::string>
       {"date(event_time) + 1", "date(sent_at)", "date_trunc('day', event_time)", "CAST(event_time AS TIMESTAMP)",
        "date(event_time, 1)", "strftime(event_time, '%Y-%m-%d')", "event_time::DATE::VARCHAR", "\"date\"(event_time)x"})
    EXPECT_EQ(utc_date_without_icu(expression, instants), expression);
}

}  // namespace
}  // namespace lakestream::sql
