// A written file's stats come from what DuckDB answered as it wrote it (COPY ... RETURN_STATS),
// not from reading the file back. They must be what reading it back gives: for generated columns
// of every type, plus the values stats trip on (strings about the 32-character cut and past
// DuckDB's own cut of long bounds, BC and far dates, infinite timestamps, decimals too wide for
// the footer's bounds), write_data_file's stats equal compute_file_stats over the file itself.
#include <gtest/gtest.h>

#include <filesystem>

#include "generated_columns.h"
#include "sql/copy_stats.h"
#include "table/delta_log_json.h"
#include "table/file_stats.h"
#include "table_fixtures.h"

namespace lakestream::delta {
namespace {

using fixtures::Kind;
using fixtures::kinds;
using fixtures::pick;
using fixtures::rows_sql;

std::vector<Kind> stats_edge_kinds() {
  return {
      {"string", false, [](std::mt19937& r) { return pick<std::string>(r, {"repeat('é', 31)", "repeat('é', 32)", "repeat('é', 33)", "repeat('z', 300)", "repeat('a', 5000)", "'😀' || repeat('x', 31)", "'A'", "'~'"}); }},
      {"date", false, [](std::mt19937& r) { return pick<std::string>(r, {"DATE '0044-03-15 (BC)'", "DATE '9999-12-31'", "DATE '0001-01-01'", "DATE '1970-01-01'"}); }},
      {"timestamp", false, [](std::mt19937& r) { return pick<std::string>(r, {"'infinity'::TIMESTAMPTZ", "'-infinity'::TIMESTAMPTZ", "TIMESTAMPTZ '0001-01-01 00:00:00+00'", "TIMESTAMPTZ '1900-02-28 23:59:59.5+00'", "TIMESTAMPTZ '2026-10-01T09:00:00.000001Z'", "TIMESTAMPTZ '2024-02-29 23:59:59.999+05:30'"}); }},
      {"timestamp_ntz", false, [](std::mt19937& r) { return pick<std::string>(r, {"TIMESTAMP '2000-02-29 12:00:00.12'", "TIMESTAMP '1969-12-31 23:59:59.999999'", "'infinity'::TIMESTAMP", "TIMESTAMP '2100-03-01 00:00:00'"}); }},
      {"decimal(38,0)", false, [](std::mt19937& r) { return pick<std::string>(r, {"CAST('99999999999999999999999999999999999999' AS DECIMAL(38,0))", "CAST(-1 AS DECIMAL(38,0))"}); }},
      {"decimal(9,3)", false, [](std::mt19937& r) { return pick<std::string>(r, {"CAST('-0.001' AS DECIMAL(9,3))", "CAST('123456.789' AS DECIMAL(9,3))", "CAST(0 AS DECIMAL(9,3))"}); }},
  };
}

class WrittenFileStats : public fixtures::TableTest, public ::testing::WithParamInterface<unsigned> {};

TEST_P(WrittenFileStats, AreWhatReadingTheFileBackGives) {
  std::mt19937 rng(GetParam());
  std::vector<Kind> all = kinds(rng);
  for (auto& kind : stats_edge_kinds()) all.push_back(kind);
  for (int file_no = 0; file_no < 6; file_no++) {
    std::vector<Column> columns;
    std::vector<const Kind*> of;
    int n = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int i = 0; i < n; i++) {
      const Kind& kind = all[std::uniform_int_distribution<size_t>(0, all.size() - 1)(rng)];
      columns.push_back({"c" + std::to_string(i) + pick<std::string>(rng, {"", "\"q", " y", "é", ".d"}), kind.type});
      of.push_back(&kind);
    }
    int rows = std::uniform_int_distribution<int>(1, 40)(rng);
    std::string select = rows_sql(rng, columns, of, rows);
    SCOPED_TRACE(schema_string(columns) + ": " + select.substr(0, 2000));
    AddFile file = write_data_file(con, table, Metadata{}, select, columns);
    ASSERT_FALSE(file.path.empty());
    EXPECT_EQ(file.stats, compute_file_stats(con, table + "/" + file.path, columns));
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, WrittenFileStats, ::testing::Range(1u, 41u));

// The stats of the kinds DuckDB describes as it writes (integers, decimals, strings, dates,
// timestamps, booleans) need nothing from the file: with the file gone they are the same.
class WriterStats : public fixtures::TableTest {};

TEST_F(WriterStats, OfTheKindsDuckDBDescribesReadNothingBack) {
  std::string path = dir / "f.parquet";
  std::vector<Column> columns{{"id", "long"}, {"note", "string"}, {"amount", "decimal(18,2)"},
                              {"day", "date"}, {"at", "timestamp"}, {"ok", "boolean"}};
  sql::CopyStats written = sql::copy_returning_stats(
      con, "COPY (SELECT i::BIGINT AS id, CASE WHEN i % 3 = 0 THEN NULL ELSE 'n' || i END AS note, "
           "(i / 4)::DECIMAL(18,2) AS amount, DATE '2026-01-01' + i::INTEGER AS day, "
           "TIMESTAMPTZ '2026-10-01 09:00:00.123456+00' + to_seconds(i) AS at, i % 2 = 0 AS ok FROM range(10) t(i)) TO " +
               sql::quote_literal(path) + " (FORMAT parquet, RETURN_STATS)");
  EXPECT_EQ(written.rows, 10);
  EXPECT_EQ(written.columns.at("\"id\"").at("max"), "9");
  EXPECT_EQ(written.columns.at("\"note\"").at("null_count"), "4");
  std::string from_file = compute_file_stats(con, path, columns);
  std::filesystem::remove(path);
  EXPECT_EQ(compute_file_stats(con, path, columns, &written), from_file);
  EXPECT_EQ(from_file,
            R"({"numRecords":10,"minValues":{"id":0,"note":"n1","amount":0.00,"day":"2026-01-01","at":"2026-10-01T09:00:00.123Z"},)"
            R"("maxValues":{"id":9,"note":"n8","amount":2.25,"day":"2026-01-10","at":"2026-10-01T09:00:09.124Z"},)"
            R"("nullCount":{"id":0,"note":4,"amount":0,"day":0,"at":0,"ok":0}})");
}

}  // namespace
}  // namespace lakestream::delta
