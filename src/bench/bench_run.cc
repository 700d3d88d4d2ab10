#include "bench/bench_run.h"

#include <algorithm>
#include <functional>
#include <ostream>

#include "bench/kafka_limit.h"
#include "bench/measured_child.h"
#include "bench/order_events.h"
#include "bench/seed_table.h"
#include "broker/embedded_broker.h"
#include "check/window_recount.h"
#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "streams/ingest_stream.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::bench {

namespace {

std::string silver_stream(int64_t keys) { return "silver_" + std::to_string(keys); }

int64_t small_backlog(const BenchOptions& o) { return std::max<int64_t>(1, o.events / o.backlog_factor); }

// The batch cap of the memory check: the small backlog in 4 batches, the big one in 4 x factor.
int64_t memory_check_cap(const BenchOptions& o) { return std::max<int64_t>(1, small_backlog(o) / 4); }

// The shop pipeline (examples/shop) with a second, smaller topic for the memory check and one
// `latest` stream per seeded silver table.
std::string pipeline_text(const BenchOptions& o, const std::string& bootstrap) {
  std::string schema =
      "order_id = \"bigint\"\ncustomer_id = \"string\"\nstatus = \"string\"\namount = \"decimal(18,2)\"\n"
      "event_time = \"timestamp\"\n";
  std::string text = "[kafka]\nbootstrap = \"" + bootstrap + "\"\n\n[lake]\ntables = \"lake\"\ncheckpoints = \"checkpoints\"\n";
  // The memory check reads the big topic and the small one with the same, smaller cap, so
  // that both backlogs are several batches.
  struct SourceSpec {
    const char* name;
    const char* topic;
    int64_t cap;
  };
  for (const auto& source : {SourceSpec{"orders", "orders", o.max_offsets_per_trigger},
                             SourceSpec{"orders_capped", "orders", memory_check_cap(o)},
                             SourceSpec{"orders_small", "orders_small", memory_check_cap(o)}})
    text += std::string("\n[sources.") + source.name + "]\ntopic = \"" + source.topic +
            "\"\nkey = \"order_id\"\nrequired = [\"order_id\", \"event_time\"]\nmax_offsets_per_trigger = " +
            std::to_string(source.cap) + "\n\n[sources." + source.name + ".schema]\n" + schema;
  text +=
      "\n[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n"
      "\n[streams.read_capped]\nkind = \"ingest\"\nsource = \"orders_capped\"\ntable = \"bronze_capped\"\n"
      "\n[streams.read_small]\nkind = \"ingest\"\nsource = \"orders_small\"\ntable = \"bronze_small\"\n"
      "\n[streams.hourly_sales]\nkind = \"window\"\nfrom = \"bronze_orders\"\ntable = \"hourly_sales\"\n"
      "filter = \"status = 'placed'\"\nevent_time = \"event_time\"\nwatermark = \"1 hour\"\n"
      "dedup = [\"order_id\", \"status\"]\nwindow = \"1 hour\"\nwindow_column = \"hour\"\noutput = \"append\"\n"
      "\n[streams.hourly_sales.aggregates]\norders = \"count(*)\"\nrevenue = \"sum(amount)\"\n";
  for (int64_t keys : o.silver_keys)
    text += "\n[streams." + silver_stream(keys) + "]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"orders_" +
            std::to_string(keys) + "_keys\"\nkey = [\"order_id\"]\norder_by = \"event_time\"\n";
  return text;
}

std::string count_text(int64_t n) {
  if (n >= 1'000'000 && n % 1'000'000 == 0) return std::to_string(n / 1'000'000) + "M";
  if (n >= 1'000 && n % 1'000 == 0) return std::to_string(n / 1'000) + "k";
  return std::to_string(n);
}

int64_t parse_count(const std::string& out, const std::string& what) {
  // The last line with digits: `query -f csv` prints a header first.
  std::string text = out;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  std::string last = text.substr(text.find_last_of('\n') == std::string::npos ? 0 : text.find_last_of('\n') + 1);
  try {
    return std::stoll(last);
  } catch (const std::exception&) {
    throw Error("benchmark: " + what + " printed no count: " + out);
  }
}

class BenchRun {
 public:
  BenchRun(const BenchOptions& options, std::ostream& progress)
      : o_(options), progress_(progress), dir_(absolute_path(options.dir)), binary_(own_binary()) {
    if (o_.events < 1) throw Error("--events must be at least 1");
    if (o_.backlog_factor < 2) throw Error("--backlog-factor must be at least 2");
    result_.options = o_;
  }

  BenchResult run() {
    prepare_owned_folder(dir_, "bench");
    EmbeddedBroker broker({{"orders", o_.partitions}, {"orders_small", o_.partitions}});
    OrderFeed feed;
    feed.events = o_.events;
    OrderFeed small = feed;
    small.events = small_backlog(o_);
    say("producing " + std::to_string(feed.events) + " order events to " + std::to_string(o_.partitions) +
        " partitions (zstd), and " + std::to_string(small.events) + " to a second topic");
    result_.feed_bytes = produce_order_feed(broker.bootstrap(), "orders", feed);
    produce_order_feed(broker.bootstrap(), "orders_small", small);

    pipeline_file_ = join_path(dir_, "lakestream.toml");
    write_file_atomic(pipeline_file_, pipeline_text(o_, broker.bootstrap()));
    Pipeline pipeline = load_pipeline(pipeline_file_);
    seed_silver_tables(pipeline);

    // The limit is the best of three reads: a slow one (the machine busy for a moment)
    // would flatter every ratio against it.
    auto limit = measure_best_of(3, "kafka_limit", "plain librdkafka consumer, records dropped (best of 3)",
                                 o_.events, {"kafka-limit", broker.bootstrap(), "orders"});
    expect(parse_count(limit.out, "the Kafka-limit consumer"), o_.events,
           "records read by the plain consumer (the broker dropped some: pass more --partitions)");
    // Ingest is the best of three too, each from an empty table and checkpoint, so that the
    // ratio compares like with like.
    measure_best_of(3, "ingest", "Kafka -> bronze (decode, Parquet, Delta commit; best of 3)", o_.events,
                    run_args("read_orders"), [&] {
                      remove_all(pipeline.table_path("bronze_orders"));
                      remove_all(pipeline.table_path("bronze_orders_quarantine"));
                      remove_all(join_path(pipeline.checkpoints_dir, "read_orders"));
                    });
    expect(count_rows("bronze_orders"), o_.events, "rows in bronze_orders");
    std::string cap = "max_offsets_per_trigger " + count_text(memory_check_cap(o_));
    measure("ingest_capped", "the same, " + cap + " (the memory check)", o_.events, run_args("read_capped"));
    measure("ingest_small", "the same, " + cap + ", 1/" + std::to_string(o_.backlog_factor) + " of the backlog",
            small.events, run_args("read_small"));
    measure("gold", "bronze -> gold (watermark, dedup, hourly window)", o_.events, run_args("hourly_sales"));
    for (int64_t keys : o_.silver_keys)
      measure("silver_" + count_text(keys), "bronze -> silver MERGE into " + count_text(keys) + " keys", o_.events,
              run_args(silver_stream(keys)));
    measure("batch_limit", "DuckDB: the hourly recount of bronze in one query", o_.events,
            {"query", "-p", pipeline_file_, "-f", "csv", batch_recount_sql(pipeline)});
    measure("shop", "the shop scenario: 6 sends, 6x3 streams, check", 0, {"demo", "--dir", join_path(dir_, "shop")});
    measure_idle_run();
    set_targets();
    return result_;
  }

 private:
  void say(const std::string& line) { progress_ << "bench: " << line << "\n" << std::flush; }

  std::vector<std::string> run_args(const std::string& stream) { return {"run", "-p", pipeline_file_, "-q", stream}; }

  ChildRun measure(const std::string& name, const std::string& what, int64_t events, const std::vector<std::string>& args) {
    return measure_best_of(1, name, what, events, args);
  }

  // Runs a step `runs` times (after `reset`, when given) and keeps the fastest run.
  ChildRun measure_best_of(int runs, const std::string& name, const std::string& what, int64_t events,
                           const std::vector<std::string>& args, const std::function<void()>& reset = nullptr) {
    say(name + ": " + what);
    ChildRun best;
    for (int i = 0; i < runs; i++) {
      if (reset) reset();
      ChildRun run = run_measured(binary_, args, dir_);
      if (i == 0 || run.seconds < best.seconds) best = run;
    }
    result_.measurements.push_back({name, what, events, best.seconds, best.cpu_seconds, best.peak_rss_mib});
    return best;
  }

  void measure_idle_run() {
    std::vector<ChildRun> runs;
    for (int i = 0; i < o_.idle_runs; i++) runs.push_back(run_measured(binary_, {"run", "-p", pipeline_file_, "-q"}, dir_));
    std::sort(runs.begin(), runs.end(), [](const ChildRun& a, const ChildRun& b) { return a.seconds < b.seconds; });
    const ChildRun& median = runs[runs.size() / 2];
    result_.measurements.push_back({"idle_run", "`lakestream run` with nothing new (median of " +
                                                    std::to_string(o_.idle_runs) + ")",
                                    0, median.seconds, median.cpu_seconds, median.peak_rss_mib});
  }

  void seed_silver_tables(const Pipeline& pipeline) {
    sql::Database db;
    sql::Connection con(db);
    OrderFeed feed;
    for (int64_t keys : o_.silver_keys) {
      say("seeding a silver table with " + count_text(keys) + " orders");
      seed_orders_table(con, pipeline.table_path("orders_" + std::to_string(keys) + "_keys"),
                        bronze_columns(*pipeline.find_source("orders")), feed.first_order_id - keys, keys,
                        o_.keys_per_file);
    }
  }

  // The same hourly recount `lakestream check` makes: distinct events, filtered, per hour.
  std::string batch_recount_sql(const Pipeline& pipeline) {
    const Stream& gold = *pipeline.find_stream("hourly_sales");
    return "SELECT count(*) AS windows, sum(_events) AS events FROM (SELECT " + window_key_sql(gold) + ", " +
           window_aggregates_sql(gold) + " FROM (" +
           window_events_sql(gold, bronze_columns(*pipeline.find_source("orders")), "bronze_orders") + ") GROUP BY ALL)";
  }

  int64_t count_rows(const std::string& table) {
    ChildRun run = run_measured(binary_, {"query", "-p", pipeline_file_, "-f", "csv", "SELECT count(*) FROM " + table}, dir_);
    return parse_count(run.out, "the count of " + table);
  }

  void expect(int64_t got, int64_t wanted, const std::string& what) {
    if (got != wanted)
      throw Error("benchmark: " + std::to_string(got) + " " + what + ", expected " + std::to_string(wanted));
  }

  void set_targets() {
    const auto& kafka = result_.get("kafka_limit");
    const auto& ingest = result_.get("ingest");
    const auto& gold = result_.get("gold");
    const auto& batch = result_.get("batch_limit");
    auto add = [&](const std::string& name, const std::string& goal, double value, bool met) {
      result_.targets.push_back({name, goal, value, met});
    };
    double share = ingest.per_second() / kafka.per_second();
    add("ingest_vs_kafka", "ingest >= 0.5 of the Kafka limit (ratio)", share, share >= 0.5);
    add("gold_rate", "gold >= 2M events/s (events/s)", gold.per_second(), gold.per_second() >= 2e6);
    double behind = batch.per_second() / gold.per_second();
    add("gold_vs_batch", "gold within 3x of the batch limit (batch/gold)", behind, behind <= 3);
    int64_t biggest = *std::max_element(o_.silver_keys.begin(), o_.silver_keys.end());
    double upserts = result_.get("silver_" + count_text(biggest)).per_second();
    add("silver_rate", "silver >= 300k upserts/s into " + count_text(biggest) + " keys (upserts/s)", upserts,
        upserts >= 3e5);
    double idle_ms = result_.get("idle_run").seconds * 1000;
    add("idle_run", "a run with nothing new < 50 ms (ms)", idle_ms, idle_ms < 50);
    // Capped batches: memory follows max_offsets_per_trigger, not the backlog. Allow 50% for
    // what grows with the table (its log, the batch count).
    double growth = result_.get("ingest_capped").peak_rss_mib / result_.get("ingest_small").peak_rss_mib;
    add("ingest_rss", "ingest peak RSS with " + std::to_string(o_.backlog_factor) +
                          "x the backlog <= 1.5x (ratio)", growth, growth <= 1.5);
  }

  BenchOptions o_;
  std::ostream& progress_;
  std::string dir_;
  std::string binary_;
  std::string pipeline_file_;
  BenchResult result_;
};

}  // namespace

const Measurement& BenchResult::get(const std::string& name) const {
  for (const auto& m : measurements)
    if (m.name == name) return m;
  throw Error("internal: the benchmark has no measurement " + name);
}

BenchResult run_bench(const BenchOptions& options, std::ostream& progress) { return BenchRun(options, progress).run(); }

}  // namespace lakestream::bench
