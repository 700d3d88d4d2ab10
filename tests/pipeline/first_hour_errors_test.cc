// What a newcomer's mistakes get told, through the binary as they meet them: every mistake of a
// pipeline file at once; SQL expressions checked before anything runs, with file:line and no
// internal SQL; stream names with "did you mean"; command-line mistakes in lakestream's voice;
// JSON output that JSON parsers take.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "util/files.h"

namespace lakestream::testing {
namespace {

// Lines 1-25: an ingest stream and a window stream over it; bootstrap names no running broker,
// so anything that reaches Kafka fails (every mistake below must be told before that).
const char* kPipeline =
    "[kafka]\n"
    "bootstrap = \"embedded:nobody-here\"\n"
    "[sources.orders.schema]\n"
    "order_id = \"bigint\"\n"
    "status = \"string\"\n"
    "amount = \"double\"\n"
    "event_time = \"timestamp\"\n"
    "[streams.read_orders]\n"
    "kind = \"ingest\"\n"
    "source = \"orders\"\n"
    "table = \"bronze_orders\"\n"
    "[streams.read_orders.derived]\n"
    "dt = \"date(event_time)\"\n"
    "[streams.hourly_sales]\n"
    "kind = \"window\"\n"
    "from = \"bronze_orders\"\n"
    "table = \"hourly_sales\"\n"
    "filter = \"status = 'placed'\"\n"
    "event_time = \"event_time\"\n"
    "watermark = \"1 hour\"\n"
    "window = \"1 hour\"\n"
    "[streams.hourly_sales.aggregates]\n"
    "orders = \"count(*)\"\n"
    "revenue = \"sum(amount)\"\n"
    "high = \"max(amount)\"\n";

std::string with(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

CommandResult lakestream_in(const TempDir& dir, const std::string& toml, const std::vector<std::string>& args) {
  write_text(dir / "lakestream.toml", toml);
  return run_lakestream(args, dir.path());
}

TEST(FirstHourErrors, EveryMistakeOfTheFileAtOnce) {
  TempDir dir;
  std::string toml = with(with(kPipeline, "watermark = \"1 hour\"", "watermark = \"1 hours\""), "kind = \"ingest\"",
                          "kind = \"ingets\"");
  CommandResult r = lakestream_in(dir, toml, {"run"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("\n2 mistakes in lakestream.toml: fix them all, then run again"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lakestream.toml:9: streams.read_orders.kind"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lakestream.toml:20: streams.hourly_sales.watermark"), std::string::npos) << r.err;
}

std::string between(const std::string& text, const std::string& begin, const std::string& end) {
  size_t from = text.find(begin);
  if (from == std::string::npos) return "";
  from += begin.size();
  return text.substr(from, text.find(end, from) - from);
}

// The three mistakes of the issue, in the shop's file: each told at its line, in one run, and
// nothing that follows from them (order_by is not "missing": it is misspelled).
TEST(FirstHourErrors, AMisspelledKeyAnUnwrittenTableAndAnUnfinishedFilterInOneRun) {
  TempDir dir;
  std::string toml = read_file(source_dir() + "/examples/shop/lakestream.toml");
  toml = with(toml, "order_by = \"event_time\"", "ordr_by = \"event_time\"");
  toml = with(toml, "from = \"bronze_orders\"\ntable = \"hourly_sales\"", "from = \"bronze_ordrs\"\ntable = \"hourly_sales\"");
  toml = with(toml, "filter = \"status = 'placed'\"", "filter = \"status == 'placed' and\"");
  CommandResult r = lakestream_in(dir, toml, {"run"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "lakestream: lakestream.toml:41: streams.latest_orders.ordr_by: unknown key; did you mean 'order_by'? "
            "(allowed here: kind, table, from, key, order_by, entity, max_staleness, max_files_per_trigger, deletes, "
            "deletes_retention, target_latency, deletion_vectors, column_mapping, change_data_feed, read, iceberg)\n"
            "lakestream.toml:46: streams.hourly_sales.from: no stream of this file writes table 'bronze_ordrs'; did you "
            "mean 'bronze_orders'? (tables written: bronze_orders, orders, hourly_sales)\n"
            "lakestream.toml:48: streams.hourly_sales.filter: 'status == 'placed' and' is not a SQL expression: it ends "
            "too soon, after 'and'\n"
            "3 mistakes in lakestream.toml: fix them all, then run again\n");
  // A mistake inside the expression is pointed at where the user wrote it.
  toml = read_file(source_dir() + "/examples/shop/lakestream.toml");
  r = lakestream_in(dir, with(toml, "filter = \"status = 'placed'\"", "filter = \"status = = 'placed'\""), {"run"});
  EXPECT_EQ(r.err, "lakestream: lakestream.toml:48: streams.hourly_sales.filter: 'status = = 'placed'' is not a SQL "
                   "expression: a syntax error at character 10, where it reads \"= 'placed'\"\n");
}

// docs/pipeline-file.md (`lakestream help pipeline-file`) shows what a run prints for three
// mistakes in its example: the lines shown are the lines printed, a wrong type of a source's
// field told without the false "source 'orders' is not declared" that once followed it.
TEST(FirstHourErrors, TheReferencesExampleOfMistakesIsWhatRunPrints) {
  std::string doc = read_file(source_dir() + "/docs/pipeline-file.md");
  std::string shown = between(doc, "```\n$ lakestream run\n", "```\n");
  std::string example = between(doc, "## A full example: the shop pipeline\n\n```toml\n", "```\n");
  ASSERT_FALSE(shown.empty());
  ASSERT_FALSE(example.empty());
  std::string toml = with(example, "amount = \"decimal(18,2)\"", "amount = \"money\"");
  toml = with(toml, "order_by = \"event_time\"", "order_by = \"event_tme\"");
  toml = with(toml, "window = \"1 hour\" ", "window = \"1 hours\"");
  TempDir dir;
  write_text(dir / "lakestream.toml", toml);
  CommandResult r = run_lakestream({"run"}, dir.path(), "", {"EVENTHUBS_CONNECTION_STRING=Endpoint=sb://x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, shown);
  EXPECT_EQ(r.err.find("is not declared"), std::string::npos);
  CommandResult help = run_lakestream({"help", "pipeline-file"}, dir.path());
  EXPECT_NE(help.out.find(shown), std::string::npos);
}

// `lakestream help` alone lists the commands, as --help does.
TEST(FirstHourErrors, HelpWithoutATopicListsTheCommands) {
  TempDir dir;
  CommandResult help = run_lakestream({"help"}, dir.path());
  CommandResult dashes = run_lakestream({"--help"}, dir.path());
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out, dashes.out);
  EXPECT_NE(help.out.find("\n  run "), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("\n  query "), std::string::npos) << help.out;
}

TEST(FirstHourErrors, SqlExpressionsAreCheckedBeforeAnythingRunsWithFileAndLine) {
  TempDir dir;
  std::string toml = with(with(kPipeline, "status = 'placed'", "stauts = 'placed'"), "sum(amount)", "sum(amout)");
  toml = with(toml, "date(event_time)", "dat(event_time)");
  CommandResult r = lakestream_in(dir, toml, {"run"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("\n3 mistakes in lakestream.toml: fix them all, then run again"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("lakestream.toml:13: streams.read_orders.derived.dt: 'dat(event_time)' does not run over the "
                       "columns of source orders: "),
            std::string::npos)
      << r.err;
  // The window's input is bronze as it will be (with the derived column), even when a derived
  // expression is wrong: its own mistakes are told too.
  EXPECT_NE(r.err.find("lakestream.toml:18: streams.hourly_sales.filter: 'stauts = 'placed'' does not run over the "
                       "columns of bronze_orders: Binder Error: Referenced column \"stauts\" not found"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("lakestream.toml:24: streams.hourly_sales.aggregates.revenue: 'sum(amout)'"), std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("SELECT"), std::string::npos) << "no internal SQL: " << r.err;
  EXPECT_EQ(r.err.find("no embedded broker"), std::string::npos) << "told before Kafka: " << r.err;
  EXPECT_EQ(lakestream_in(dir, kPipeline, {"run"}).err.find("does not run"), std::string::npos);
  // A file checked once is not checked again (no DuckDB for a run with nothing new), but any
  // change to it is.
  EXPECT_TRUE(path_exists(dir / "checkpoints/.expressions-checked"));
  EXPECT_NE(lakestream_in(dir, toml, {"run"}).err.find("3 mistakes in lakestream.toml"), std::string::npos);
}

TEST(FirstHourErrors, StreamNamesGetDidYouMeanAndATableNameSaysItsStream) {
  TempDir dir;
  CommandResult typo = lakestream_in(dir, kPipeline, {"run", "hourly_sale"});
  EXPECT_EQ(typo.exit_code, 1);
  EXPECT_NE(typo.err.find("no stream named hourly_sale in "), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("; did you mean hourly_sales?"), std::string::npos) << typo.err;
  CommandResult table = lakestream_in(dir, kPipeline, {"run", "bronze_orders"});
  EXPECT_NE(table.err.find("bronze_orders is a table, written by stream read_orders; name that stream"),
            std::string::npos)
      << table.err;
}

TEST(FirstHourErrors, CommandLineMistakesInLakestreamsVoiceWithTheUsage) {
  TempDir dir;
  CommandResult r = lakestream_in(dir, kPipeline, {"query"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "lakestream query: sql is missing\nusage: lakestream query [OPTIONS] sql\n"
                   "(`lakestream query --help` says more)\n");
  r = lakestream_in(dir, kPipeline, {"produce", "-t"});
  EXPECT_NE(r.err.find("lakestream produce: --topic needs a value\n"), std::string::npos) << r.err;
  r = lakestream_in(dir, kPipeline, {"run", "--metrics-port", "abc"});
  EXPECT_NE(r.err.find("lakestream run: --metrics-port: 'abc' is not a value it takes\n"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("Error"), std::string::npos) << r.err;
}

// A query before any run names the stream that writes the table, not DuckDB's catalog.
TEST(FirstHourErrors, QueryBeforeAnyRunSaysWhichStreamWritesTheTable) {
  TempDir dir;
  CommandResult gold = lakestream_in(dir, kPipeline, {"query", "select * from hourly_sales"});
  EXPECT_EQ(gold.exit_code, 1);
  EXPECT_EQ(gold.err, "lakestream: table hourly_sales has no data yet: stream hourly_sales writes it and has not "
                      "written it yet; run `lakestream run` (its first batch creates the table)\n");
  CommandResult quarantine = lakestream_in(dir, kPipeline, {"query", "-f", "json", "select * from bronze_orders_quarantine"});
  EXPECT_EQ(quarantine.err, "lakestream: table bronze_orders_quarantine has no data yet: stream read_orders writes it "
                            "when it quarantines a record, and it has not run yet; run `lakestream run`\n");
  CommandResult other = lakestream_in(dir, kPipeline, {"query", "select * from nowhere"});
  EXPECT_NE(other.err.find("Catalog Error"), std::string::npos) << "not a table of the pipeline: " << other.err;
}

TEST(FirstHourErrors, QueryJsonIsAlwaysJson) {
  TempDir dir;
  CommandResult r = lakestream_in(
      dir, kPipeline,
      {"query", "-f", "json",
       "select 'nan'::double as x, 'inf'::double as y, 1.5 as z, timestamptz '2026-01-01 10:00:00+02' as t, "
       "timestamp '2026-03-02 09:30:00' as ntz, null as n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto row = nlohmann::json::parse(r.out);  // throws when it is not JSON
  EXPECT_TRUE(row["x"].is_null());
  EXPECT_TRUE(row["y"].is_null());
  EXPECT_EQ(row["z"], 1.5);
  EXPECT_EQ(row["t"], "2026-01-01T08:00:00.000000Z");
  EXPECT_EQ(row["ntz"], "2026-03-02T09:30:00.000000Z");
  EXPECT_TRUE(row["n"].is_null());
  // Columns named like the aliases the command uses inside are columns still, the row an object.
  CommandResult named = lakestream_in(dir, kPipeline, {"query", "-f", "json", "select 't' as t, [1, 2] as j, 3 as q"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  auto object = nlohmann::json::parse(named.out);
  ASSERT_TRUE(object.is_object()) << named.out;
  EXPECT_EQ(object["j"], nlohmann::json::array({1, 2}));
  EXPECT_EQ(object["q"], 3);
}

}  // namespace
}  // namespace lakestream::testing
