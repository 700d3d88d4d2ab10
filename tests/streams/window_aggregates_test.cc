// A window stream's aggregate SQL (streams/window_aggregates.h) in the three forms a stream runs:
// partials over each batch, merged into the state batch by batch, then the final columns; against
// a recount in C++ that shares no code with it, over generated rows (times before 1970 and after,
// NULL groups and values, negative decimals, doubles of any size) cut into batches at random.
#include "streams/window_aggregates.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <optional>
#include <random>

namespace lakestream {
namespace {

struct Row {
  int64_t t_us;
  std::optional<std::string> g;
  std::optional<int64_t> cents;  // amount DECIMAL(18,2)
  std::optional<int32_t> qty;
  std::optional<double> score;
};

// What the recount keeps of one window.
struct Recount {
  int64_t n = 0, priced = 0, cents = 0, quantities = 0, units = 0, scores = 0;
  std::optional<int64_t> cheapest;
  std::optional<double> top_score;
  double score_sum = 0;
};

Stream window_stream(int64_t window_us) {
  Stream s;
  s.name = "totals";
  s.event_time = "t";
  s.window_us = window_us;
  s.window_column = "window_start";
  s.group_by = {"g"};
  s.aggregates = {{"n", "count", "*"},          {"priced", "count", "amount"}, {"revenue", "sum", "amount"},
                  {"avg_amount", "avg", "amount"}, {"cheapest", "min", "amount"}, {"top_score", "max", "score"},
                  {"units", "sum", "qty"},        {"avg_units", "avg", "qty"},     {"score_sum", "sum", "score"},
                  {"avg_score", "avg", "score"}};
  return s;
}

std::string decimal_text(int64_t units, int scale) {
  std::string digits = std::to_string(units < 0 ? -units : units);
  if (digits.size() <= static_cast<size_t>(scale)) digits = std::string(scale + 1 - digits.size(), '0') + digits;
  return (units < 0 ? "-" : "") + digits.substr(0, digits.size() - scale) + "." + digits.substr(digits.size() - scale);
}

// Spark's decimal average of cents over n values, at scale 6: exact, rounded half away from zero.
std::string average_of_cents(int64_t cents, int64_t n) {
  __int128 micro_units = static_cast<__int128>(cents < 0 ? -cents : cents) * 10000;
  int64_t rounded = static_cast<int64_t>((micro_units * 2 + n) / (2 * n));
  return decimal_text(cents < 0 ? -rounded : rounded, 6);
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

void check_seed(uint32_t seed, int64_t window_us) {
  SCOPED_TRACE("seed " + std::to_string(seed) + ", window " + std::to_string(window_us) + " us");
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  std::vector<Row> rows;
  const int64_t day = 86'400'000'000;
  for (int i = 0; i < 1500; i++) {
    int64_t base = std::vector<int64_t>{-day, 0, 1'780'000'000'000'000}[pick(3)];
    Row r{base + pick(3 * day) - day, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
    if (pick(5)) r.g = std::string(1, static_cast<char>('a' + pick(3)));
    if (pick(4)) r.cents = pick(2'000'000) - 400'000;
    if (pick(3)) r.qty = static_cast<int32_t>(pick(200) - 20);
    if (pick(4)) r.score = std::ldexp(static_cast<double>(pick(1'000'000)) - 300'000, static_cast<int>(pick(40)) - 20);
    rows.push_back(r);
  }

  sql::Database db;
  sql::Connection con(db);
  con.exec("CREATE TABLE events (id INTEGER, t TIMESTAMPTZ, g VARCHAR, amount DECIMAL(18,2), qty INTEGER, score DOUBLE)");
  std::string values;
  auto or_null = [](const auto& v, auto text) { return v ? text(*v) : std::string("NULL"); };
  for (size_t i = 0; i < rows.size(); i++) {
    const Row& r = rows[i];
    // A double goes in as text: DuckDB casts a decimal literal to DOUBLE by a division that may
    // round, but parses text exactly.
    char score[64];
    if (r.score) std::snprintf(score, sizeof score, "%.17g", *r.score);
    values += (i ? ", (" : "(") + std::to_string(i) + ", make_timestamp(" + std::to_string(r.t_us) + ")::TIMESTAMPTZ, " +
              or_null(r.g, [](const std::string& g) { return "'" + g + "'"; }) + ", " +
              or_null(r.cents, [](int64_t c) { return decimal_text(c, 2); }) + ", " +
              or_null(r.qty, [](int32_t q) { return std::to_string(q); }) + ", " +
              (r.score ? "'" + std::string(score) + "'::DOUBLE" : "NULL") + ")";
  }
  con.exec("INSERT INTO events VALUES " + values);

  // As the window stream runs them (streams/window_stream.cc): the state's shape, then per batch
  // the rows' arguments, their partials, merged into the windows already there and added.
  Stream stream = window_stream(window_us);
  WindowAggregates aggregates(stream, {"", "DECIMAL(18,2)", "DECIMAL(18,2)", "DECIMAL(18,2)", "DECIMAL(18,2)", "DOUBLE",
                                       "INTEGER", "INTEGER", "DOUBLE", "DOUBLE"});
  con.exec("CREATE TABLE windows AS SELECT " + aggregates.window_key_select() + ", " + aggregates.partial_select() +
           " FROM events GROUP BY ALL LIMIT 0");
  int batches = 0;
  for (size_t from = 0; from < rows.size(); batches++) {
    size_t to = std::min(rows.size(), from + 1 + static_cast<size_t>(pick(400)));
    con.exec("CREATE OR REPLACE TEMP TABLE batch_rows AS SELECT t, g, " + aggregates.argument_select() +
             " FROM events WHERE id >= " + std::to_string(from) + " AND id < " + std::to_string(to));
    con.exec("CREATE OR REPLACE TEMP TABLE window_partial AS " + aggregates.partials_by_window("batch_rows"));
    con.exec("UPDATE windows w SET " + aggregates.merge_assignments() + " FROM window_partial p WHERE " +
             aggregates.same_window("w", "p"));
    con.exec("INSERT INTO windows SELECT p.* FROM window_partial p WHERE NOT EXISTS (SELECT 1 FROM windows w WHERE " +
             aggregates.same_window("w", "p") + ")");
    from = to;
  }
  ASSERT_GT(batches, 3);
  sql::Rows got = con.query("SELECT epoch_us(window_start) AS ws, g, n::VARCHAR AS n, priced::VARCHAR AS priced, "
                            "revenue::VARCHAR AS revenue, avg_amount::VARCHAR AS avg_amount, cheapest::VARCHAR AS cheapest, "
                            "top_score::VARCHAR AS top_score, units::VARCHAR AS units, avg_units::VARCHAR AS avg_units, "
                            "score_sum::VARCHAR AS score_sum, avg_score::VARCHAR AS avg_score, typeof(revenue) AS revenue_type, "
                            "typeof(avg_amount) AS avg_type FROM (SELECT " + aggregates.final_select() +
                            " FROM windows) ORDER BY ws, g NULLS FIRST");

  std::map<std::pair<int64_t, std::optional<std::string>>, Recount> recount;
  for (const Row& r : rows) {
    int64_t start = r.t_us - (((r.t_us % window_us) + window_us) % window_us);
    Recount& w = recount[{start, r.g}];
    w.n++;
    if (r.cents) {
      w.priced++;
      w.cents += *r.cents;
      w.cheapest = w.cheapest ? std::min(*w.cheapest, *r.cents) : *r.cents;
    }
    if (r.qty) {
      w.quantities++;
      w.units += *r.qty;
    }
    if (r.score) {
      w.scores++;
      w.score_sum += *r.score;
      w.top_score = w.top_score ? std::max(*w.top_score, *r.score) : *r.score;
    }
  }
  ASSERT_EQ(got.size(), recount.size());
  size_t i = 0;
  for (const auto& [key, w] : recount) {
    SCOPED_TRACE("window " + std::to_string(key.first) + " " + key.second.value_or("NULL"));
    ASSERT_EQ(std::stoll(got.text(i, "ws")), key.first);
    EXPECT_EQ(got.at(i, "g"), key.second);
    EXPECT_EQ(got.text(i, "n"), std::to_string(w.n));
    EXPECT_EQ(got.text(i, "priced"), std::to_string(w.priced));
    EXPECT_EQ(got.text(i, "revenue_type"), "DECIMAL(28,2)");
    EXPECT_EQ(got.text(i, "avg_type"), "DECIMAL(22,6)");
    EXPECT_EQ(got.at(i, "revenue"), w.priced ? std::optional(decimal_text(w.cents, 2)) : std::nullopt);
    EXPECT_EQ(got.at(i, "avg_amount"), w.priced ? std::optional(average_of_cents(w.cents, w.priced)) : std::nullopt);
    EXPECT_EQ(got.at(i, "cheapest"), w.cheapest ? std::optional(decimal_text(*w.cheapest, 2)) : std::nullopt);
    EXPECT_EQ(got.at(i, "units"), w.quantities ? std::optional(std::to_string(w.units)) : std::nullopt);
    if (w.quantities) EXPECT_TRUE(close(std::stod(got.text(i, "avg_units")), static_cast<double>(w.units) / w.quantities));
    else EXPECT_FALSE(got.at(i, "avg_units"));
    if (w.scores) {
      EXPECT_EQ(std::stod(got.text(i, "top_score")), *w.top_score) << got.text(i, "top_score");
      EXPECT_TRUE(close(std::stod(got.text(i, "score_sum")), w.score_sum)) << got.text(i, "score_sum") << " " << w.score_sum;
      EXPECT_TRUE(close(std::stod(got.text(i, "avg_score")), w.score_sum / w.scores));
    } else {
      EXPECT_FALSE(got.at(i, "top_score"));
      EXPECT_FALSE(got.at(i, "score_sum"));
      EXPECT_FALSE(got.at(i, "avg_score"));
    }
    i++;
  }
}

TEST(WindowAggregates, PartialsMergedBatchByBatchEqualARecountOfEveryRow) {
  for (uint32_t seed : {1u, 2u, 3u}) check_seed(seed, 3'600'000'000);  // hours
  check_seed(4, 900'000'000);                                          // 15 minutes
  check_seed(5, 86'400'000'000);                                       // days
  check_seed(6, 7'000'000);                                            // 7 s, not a divisor of a minute
}

}  // namespace
}  // namespace lakestream
