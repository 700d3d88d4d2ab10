#include "bench/bench_run.h"

#include <chrono>
#include <limits>
#include <set>
#include <sstream>
#include <thread>

#include <algorithm>
#include <functional>
#include <ostream>

#include "bench/checkpoint_growth.h"
#include "bench/cdc_events.h"
#include "bench/clickstream_events.h"
#include "bench/freshness.h"
#include "bench/kafka_limit.h"
#include "bench/measured_child.h"
#include "bench/order_events.h"
#include "bench/peer_scripts.h"
#include "bench/seed_table.h"
#include "bench/update_events.h"
#include "bench/wide_events.h"
#include "checkpoint/progress_log.h"
#include "broker/embedded_broker.h"
#include "check/window_recount.h"
#include "pipeline/pipeline.h"
#include "sql/duckdb.h"
#include "source/kinesis_client.h"
#include "storage/object_store.h"
#include "streams/ingest_stream.h"
#include "table/commit_record.h"
#include "table/delta_table.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::bench {

namespace {

std::string silver_stream(int64_t keys) { return "silver_" + std::to_string(keys); }

// A wide event is about 8 times the bytes of a shop or clickstream event: the wide workload
// produces 1/8 of --events (and caps its ingest batches at 1/8), so that every workload's feed
// is about as many bytes, and no workload takes more of the embedded broker.s retention than another.
constexpr int64_t kWideEventsPerEvent = 8;

int64_t wide_events(const BenchOptions& o) { return std::max<int64_t>(1, o.events / kWideEventsPerEvent); }

int64_t small_backlog(const BenchOptions& o) { return std::max<int64_t>(1, o.events / o.backlog_factor); }

// The batch cap of the memory check: the small backlog in 4 batches, the big one in 4 x factor.
int64_t memory_check_cap(const BenchOptions& o) { return std::max<int64_t>(1, small_backlog(o) / 4); }

std::string pipeline_head(const std::string& bootstrap, const std::string& workload) {
  return "[kafka]\nbootstrap = \"" + bootstrap + "\"\n\n[lake]\ntables = \"" + workload + "/lake\"\ncheckpoints = \"" +
         workload + "/checkpoints\"\n";
}

// The shop pipeline (examples/shop) with a second, smaller topic for the memory check, one
// `latest` stream per seeded silver table, and one into an empty table for the end-to-end run.
const char* const kOrderSchema =
    "order_id = \"bigint\"\ncustomer_id = \"string\"\nstatus = \"string\"\namount = \"decimal(18,2)\"\n"
    "event_time = \"timestamp\"\n";

// Ingest of the orders topic alone, by `workers` processes of consumer group bench-workers-N
// (docs/scale-out.md), each into its own lake.
std::string workers_pipeline(const BenchOptions& o, const std::string& bootstrap, int workers) {
  std::string name = "workers_" + std::to_string(workers);
  // The embedded broker finishes a rebalance when the members it waits for rejoin or their
  // session times out: a short session keeps a worker that just left from holding it up.
  return "[kafka]\nbootstrap = \"" + bootstrap + "\"\ngroup = \"bench-" + name +
         "\"\n\n[kafka.properties]\n\"session.timeout.ms\" = 6000\n\"heartbeat.interval.ms\" = 500\n\n[lake]\ntables = \"" + name +
         "/lake\"\ncheckpoints = \"" + name + "/checkpoints\"\n\n[sources.orders]\ntopic = \"orders\"\nkey = \"order_id\"\n"
         "required = [\"order_id\", \"event_time\"]\nmax_offsets_per_trigger = " + std::to_string(o.max_offsets_per_trigger) +
         "\n\n[sources.orders.schema]\n" + kOrderSchema +
         "\n[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n";
}

std::string shop_pipeline(const BenchOptions& o, const std::string& bootstrap) {
  const std::string schema = kOrderSchema;
  std::string text = pipeline_head(bootstrap, "shop");
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
      "\n[streams.hourly_sales.aggregates]\norders = \"count(*)\"\nrevenue = \"sum(amount)\"\n"
      "\n[streams.latest_orders]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"orders\"\n"
      "key = [\"order_id\"]\norder_by = \"event_time\"\n";
  for (int64_t keys : o.silver_keys)
    text += "\n[streams." + silver_stream(keys) + "]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"orders_" +
            std::to_string(keys) + "_keys\"\nkey = [\"order_id\"]\norder_by = \"event_time\"\n";
  return text;
}

// The freshness steps' window: a minute of event time, as is the watermark delay, and the feed's
// resends dropped (dedup on order_id and status, as the shop's hourly sales). The feed's events
// are 36 ms of event time apart, so at 10k events/s a window closes every 0.17 s.
const WindowShape kFreshWindow{"event_time", 60'000, 60'000, "window_start"};

// The shop's events from a topic into bronze, silver and gold, for the freshness steps;
// `downstream` is added to the silver and gold streams' sections.
std::string freshness_pipeline(const std::string& bootstrap, const std::string& topic, const std::string& downstream = "",
                               const std::string& silver = "") {
  return pipeline_head(bootstrap, topic) + "\n[sources.orders]\ntopic = \"" + topic +
         "\"\nkey = \"order_id\"\nrequired = [\"order_id\", \"event_time\"]\n"
         "\n[sources.orders.schema]\norder_id = \"bigint\"\ncustomer_id = \"string\"\nstatus = \"string\"\n"
         "amount = \"decimal(18,2)\"\nevent_time = \"timestamp\"\n"
         "\n[streams.read_fresh]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_fresh\"\n"
         "\n[streams.latest_fresh]\nkind = \"latest\"\nfrom = \"bronze_fresh\"\ntable = \"orders_fresh\"\n"
         "key = [\"order_id\"]\norder_by = \"event_time\"\n" + downstream + silver +
         "\n[streams.sales_fresh]\nkind = \"window\"\nfrom = \"bronze_fresh\"\ntable = \"sales_fresh\"\n" + downstream +
         "event_time = \"" + kFreshWindow.event_time_column + "\"\nwatermark = \"" +
         std::to_string(kFreshWindow.watermark_delay_ms / 1000) + " seconds\"\nwindow = \"" +
         std::to_string(kFreshWindow.window_ms / 1000) + " seconds\"\ndedup = [\"order_id\", \"status\"]\noutput = \"append\"\n"
         "\n[streams.sales_fresh.aggregates]\norders = \"count(*)\"\nrevenue = \"sum(amount)\"\n";
}

// The service steps' pipeline: the freshness pipeline with bronze's target latency for the
// service, and silver's and gold's own (what is left of their latency budget after bronze's).
std::string service_pipeline(const std::string& bootstrap, const std::string& topic, const BenchOptions& o) {
  return "[service]\ntarget_latency = \"" + o.service_target_latency + "\"\n\n" +
         freshness_pipeline(bootstrap, topic, "target_latency = \"" + o.service_downstream_target_latency + "\"\n",
                            o.service_silver == "merge-on-read" ? "deletion_vectors = true\n" : "");
}

// The store workload's pipeline: the shop's ingest (in batches of a quarter of the feed, and of a
// sixteenth into a second table) and hourly gold, with the lake under `lake` (a folder or a
// store URL: the tables and the checkpoints both).
std::string store_pipeline(const std::string& bootstrap, const std::string& lake, int64_t events) {
  std::string text = "[kafka]\nbootstrap = \"" + bootstrap + "\"\n\n[lake]\ntables = \"" + lake +
                     "/lake\"\ncheckpoints = \"" + lake + "/checkpoints\"\n";
  for (const auto& [name, cap] : {std::pair<std::string, int64_t>{"orders", std::max<int64_t>(1, events / 4)},
                                  std::pair<std::string, int64_t>{"orders_small", std::max<int64_t>(1, events / 16)}})
    text += "\n[sources." + name + "]\ntopic = \"orders_store\"\nkey = \"order_id\"\n"
            "required = [\"order_id\", \"event_time\"]\nmax_offsets_per_trigger = " + std::to_string(cap) +
            "\n\n[sources." + name + ".schema]\n" + kOrderSchema;
  return text +
         "\n[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n"
         "\n[streams.read_small]\nkind = \"ingest\"\nsource = \"orders_small\"\ntable = \"bronze_small\"\n"
         "\n[streams.hourly_sales]\nkind = \"window\"\nfrom = \"bronze_orders\"\ntable = \"hourly_sales\"\n"
         "filter = \"status = 'placed'\"\nevent_time = \"event_time\"\nwatermark = \"1 hour\"\n"
         "dedup = [\"order_id\", \"status\"]\nwindow = \"1 hour\"\nwindow_column = \"hour\"\noutput = \"append\"\n"
         "\n[streams.hourly_sales.aggregates]\norders = \"count(*)\"\nrevenue = \"sum(amount)\"\n";
}

// The kinesis workload's pipeline: the shop's orders from Kinesis stream `stream` into bronze.
std::string kinesis_pipeline(const std::string& endpoint, const std::string& stream) {
  return "[lake]\ntables = \"kinesis/lake\"\ncheckpoints = \"kinesis/checkpoints\"\n"
         "\n[sources.orders]\nkinesis = \"" + stream + "\"\nendpoint = \"" + endpoint +
         "\"\nrequired = [\"order_id\", \"event_time\"]\n\n[sources.orders.schema]\n" + kOrderSchema +
         "\n[streams.read_orders]\nkind = \"ingest\"\nsource = \"orders\"\ntable = \"bronze_orders\"\n";
}

// The events of the store workload: a tenth of the others' (a store's round trips, not the
// events, are what it measures), at least 1,000.
int64_t store_events(const BenchOptions& o) { return std::max<int64_t>(1000, o.events / 10); }

// The hands-on lab's pipeline: bronze partitioned by day, per-minute revenue with a 60 s
// watermark and dedup on event_id, the newest event of each customer.
std::string clickstream_pipeline(const BenchOptions& o, const std::string& bootstrap) {
  return pipeline_head(bootstrap, "clickstream") +
         "\n[sources.clicks]\ntopic = \"clicks\"\nkey = \"customer_id\"\nrequired = [\"event_id\", \"event_time\"]\n"
         "max_offsets_per_trigger = " + std::to_string(o.max_offsets_per_trigger) +
         "\n\n[sources.clicks.schema]\nevent_id = \"string\"\norder_id = \"string\"\ncustomer_id = \"string\"\n"
         "amount = \"double\"\nevent_time = \"timestamp\"\n"
         "\n[streams.read_clicks]\nkind = \"ingest\"\nsource = \"clicks\"\ntable = \"bronze_clicks\"\n"
         "partition_by = [\"dt\"]\n[streams.read_clicks.derived]\ndt = \"date(event_time)\"\n"
         "\n[streams.revenue]\nkind = \"window\"\nfrom = \"bronze_clicks\"\ntable = \"revenue_per_minute\"\n"
         "event_time = \"event_time\"\nwatermark = \"60 seconds\"\ndedup = [\"event_id\"]\nwindow = \"1 minute\"\n"
         "output = \"append\"\n[streams.revenue.aggregates]\nrevenue = \"sum(amount)\"\nevents = \"count(*)\"\n"
         "\n[streams.customers]\nkind = \"latest\"\nfrom = \"bronze_clicks\"\ntable = \"customers\"\n"
         "key = [\"customer_id\"]\norder_by = \"event_time\"\n";
}

// A customers table's Debezium change events into bronze, and silver with the deletes applied.
std::string cdc_pipeline(const BenchOptions& o, const std::string& bootstrap) {
  return pipeline_head(bootstrap, "cdc") +
         "\n[sources.customers]\ntopic = \"customers\"\nenvelope = \"debezium\"\nmax_offsets_per_trigger = " +
         std::to_string(o.max_offsets_per_trigger) +
         "\n\n[sources.customers.schema]\nid = \"bigint\"\nname = \"string\"\nemail = \"string\"\ntier = \"string\"\n"
         "balance = \"decimal(12,2)\"\n"
         "\n[streams.read_customers]\nkind = \"ingest\"\nsource = \"customers\"\ntable = \"bronze_customers\"\n"
         "\n[streams.customers]\nkind = \"latest\"\nfrom = \"bronze_customers\"\ntable = \"customers\"\nkey = \"id\"\n"
         "order_by = \"_source_lsn\"\ndeletes = \"_op = 'd'\"\nentity = \"customer\"\n";
}

// The cdc workload's customers: about 20 changes each.
int64_t cdc_keys(const BenchOptions& o) { return std::max<int64_t>(1, o.events / 20); }

// An analytics tracker's wide events: the declared members into bronze, per-minute figures by
// event type with a 60 s watermark and dedup on event_id, the newest event of each user.
std::string wide_pipeline(const BenchOptions& o, const std::string& bootstrap) {
  return pipeline_head(bootstrap, "wide") +
         "\n[sources.tracker]\ntopic = \"tracker\"\nkey = \"user_id\"\nrequired = [\"event_id\", \"event_time\", \"user_id\"]\n"
         "max_offsets_per_trigger = " + std::to_string(std::max<int64_t>(1, o.max_offsets_per_trigger / kWideEventsPerEvent)) +
         "\n\n[sources.tracker.schema]\n" + wide_schema() +
         "\n[streams.read_tracker]\nkind = \"ingest\"\nsource = \"tracker\"\ntable = \"bronze_tracker\"\n"
         "\n[streams.activity]\nkind = \"window\"\nfrom = \"bronze_tracker\"\ntable = \"activity_per_minute\"\n"
         "event_time = \"event_time\"\nwatermark = \"60 seconds\"\ndedup = [\"event_id\"]\nwindow = \"1 minute\"\n"
         "group_by = [\"event_type\"]\noutput = \"append\"\n[streams.activity.aggregates]\nevents = \"count(*)\"\n"
         "cart_total = \"sum(cart_value)\"\nslowest_ms = \"max(load_time_ms)\"\n"
         "\n[streams.users]\nkind = \"latest\"\nfrom = \"bronze_tracker\"\ntable = \"users\"\n"
         "key = [\"user_id\"]\norder_by = \"event_time\"\n";
}

// Random-key updates into bronze, a batch a second of them, and three silver streams merging them
// into seeded tables of the same keys: one copy-on-write, one merge-on-read (deletion vectors),
// and one merge-on-read with the change data feed on (each batch also writes its changes).
// Each silver batch reads one bronze batch (one file); compaction is off, so that what a batch
// writes is the batch's alone.
std::string upserts_pipeline(const BenchOptions& o, const std::string& bootstrap) {
  std::string text = pipeline_head(bootstrap, "upserts") + "compact = false\n" +
                     "\n[sources.updates]\ntopic = \"updates\"\nkey = \"order_id\"\nrequired = [\"order_id\", \"event_time\"]\n"
                     "max_offsets_per_trigger = " + std::to_string(o.upsert_rate) + "\n\n[sources.updates.schema]\n" +
                     kOrderSchema +
                     "\n[streams.read_updates]\nkind = \"ingest\"\nsource = \"updates\"\ntable = \"bronze_updates\"\n";
  for (const std::string mode : {"copy_on_write", "merge_on_read", "change_feed"})
    text += "\n[streams.silver_" + mode + "]\nkind = \"latest\"\nfrom = \"bronze_updates\"\ntable = \"orders_" + mode +
            "\"\nkey = [\"order_id\"]\norder_by = \"event_time\"\nmax_files_per_trigger = 1\n" +
            (mode != "copy_on_write" ? "deletion_vectors = true\n" : "") + (mode == "change_feed" ? "change_data_feed = true\n" : "");
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
    bool shop = selected("shop"), clickstream = selected("clickstream"), wide = selected("wide");
    std::vector<TopicSpec> topics;
    if (shop) topics = {{"orders", o_.partitions}, {"orders_small", o_.partitions}};
    if (clickstream) topics.push_back({"clicks", o_.partitions});
    if (wide) topics.push_back({"tracker", o_.partitions});
    bool store = selected("store");
    if (store && o_.store_url.empty())
      throw Error("the store workload needs --store URL: an S3 or Azure location (s3://bucket/prefix, az://container/prefix) "
                  "with its credentials in AWS_* or AZURE_STORAGE_* (scripts/bench-store runs it against s3rver and Azurite)");
    if (store) topics.push_back({"orders_store", o_.partitions});
    if (selected("kinesis") && o_.kinesis_endpoint.empty())
      throw Error("the kinesis workload needs --kinesis-endpoint URL: a Kinesis endpoint with its credentials in AWS_* "
                  "(scripts/bench-kinesis runs it against kinesalite)");
    bool cdc = selected("cdc");
    if (cdc) topics.push_back({"customers", o_.partitions});
    bool upserts = selected("upserts");
    if (upserts) topics.push_back({"updates", o_.partitions});
    bool freshness = selected("freshness");
    if (freshness)
      for (int64_t rate : o_.freshness_rates) topics.push_back({"fresh_" + count_text(rate), 3});
    bool service = selected("service");
    if (service)
      for (int64_t rate : o_.service_rates) topics.push_back({"service_" + count_text(rate), 6});
    EmbeddedBroker broker(topics);
    if (shop) run_shop(broker.bootstrap());
    if (clickstream) run_clickstream(broker.bootstrap());
    if (wide) run_wide(broker.bootstrap());
    if (cdc) run_cdc(broker.bootstrap());
    if (upserts) run_upserts(broker.bootstrap());
    if (freshness) run_freshness(broker.bootstrap());
    if (service) run_service(broker.bootstrap());
    if (store) run_store(broker.bootstrap());
    if (selected("kinesis")) run_kinesis();
    if (selected("checkpoints")) run_checkpoints();
    set_targets();
    return result_;
  }

 private:
  bool selected(const std::string& workload) const {
    return std::find(o_.workloads.begin(), o_.workloads.end(), workload) != o_.workloads.end();
  }

  void run_shop(const std::string& bootstrap) {
    workload_ = "shop";
    OrderFeed feed;
    feed.events = o_.events;
    OrderFeed small = feed;
    small.events = small_backlog(o_);
    say("producing " + std::to_string(feed.events) + " order events to " + std::to_string(o_.partitions) +
        " partitions (zstd), and " + std::to_string(small.events) + " to a second topic");
    result_.feed_bytes = produce_order_feed(bootstrap, "orders", feed);
    produce_order_feed(bootstrap, "orders_small", small);

    pipeline_file_ = join_path(dir_, "shop.toml");
    write_file_atomic(pipeline_file_, shop_pipeline(o_, bootstrap));
    Pipeline pipeline = load_pipeline(pipeline_file_);
    seed_silver_tables(pipeline);

    measure_kafka_limit(bootstrap, "orders");
    measure_ingest(pipeline, "read_orders", "Kafka -> bronze (decode, Parquet, Delta commit; best of 3)");
    std::string cap = "max_offsets_per_trigger " + count_text(memory_check_cap(o_));
    measure("ingest_capped", "the same, " + cap + " (the memory check)", o_.events, run_args("read_capped"));
    measure("ingest_small", "the same, " + cap + ", 1/" + std::to_string(o_.backlog_factor) + " of the backlog",
            small.events, run_args("read_small"));
    measure("gold", "bronze -> gold (watermark, dedup, hourly window)", o_.events, run_args("hourly_sales"));
    for (int64_t keys : o_.silver_keys)
      measure("silver_" + count_text(keys), "bronze -> silver MERGE into " + count_text(keys) + " keys", o_.events,
              run_args(silver_stream(keys)));
    measure_batch_limit(pipeline, "hourly_sales", "bronze_orders", "orders", "DuckDB: the hourly recount of bronze in one query");
    measure_end_to_end(pipeline, {"read_orders", "hourly_sales", "latest_orders"});
    measure("shop", "the shop scenario: 6 sends, 6x3 streams, check", 0, {"demo", "--dir", join_path(dir_, "shop-demo")});
    measure_idle_run(bootstrap, {"orders", "orders_small"});
    for (int workers : {1, 2, 4}) measure_workers(bootstrap, workers);
  }

  // `workers` plain runs of one pipeline file at once, sharing the topic as a consumer group:
  // the wall time until the last ends (joining the group included), the CPU of all of them.
  void measure_workers(const std::string& bootstrap, int workers) {
    std::string file = join_path(dir_, "workers_" + std::to_string(workers) + ".toml");
    write_file_atomic(file, workers_pipeline(o_, bootstrap, workers));
    std::vector<std::shared_ptr<StartedChild>> children;
    for (int i = 0; i < workers; i++) children.push_back(start_measured(binary_, {"run", "-p", file, "-q"}, dir_));
    ChildRun all;
    for (const auto& child : children) {
      ChildRun one = wait_measured(child);
      all.seconds = std::max(all.seconds, one.seconds);
      all.cpu_seconds += one.cpu_seconds;
      all.peak_rss_mib = std::max(all.peak_rss_mib, one.peak_rss_mib);
    }
    ChildRun counted = run_measured(binary_, {"query", "-p", file, "-f", "csv",
                                              "SELECT count(DISTINCT (partition, \"offset\")) FROM bronze_orders"}, dir_);
    expect(parse_count(counted.out, "the offsets in the workers' bronze"), o_.events, "offsets in the workers' bronze");
    std::string name = "workers_" + std::to_string(workers);
    say(name + ": " + std::to_string(static_cast<int64_t>(o_.events / all.seconds)) + " events/s");
    result_.measurements.push_back({workload_, name,
                                    std::to_string(workers) + (workers == 1 ? " worker" : " workers") +
                                        " of a consumer group ingesting the topic (docs/scale-out.md)",
                                    o_.events, all.seconds, all.cpu_seconds, all.peak_rss_mib});
  }

  void run_clickstream(const std::string& bootstrap) {
    workload_ = "clickstream";
    ClickstreamFeed feed;
    feed.events = o_.events;
    say("producing " + std::to_string(feed.events) + " clickstream events (uuids, isoformat times, doubles) to " +
        std::to_string(o_.partitions) + " partitions (zstd)");
    int64_t bytes = produce_feed(bootstrap, "clicks", feed.events, [&](int64_t i) { return clickstream_event(feed, i); });
    Pipeline pipeline = use_pipeline(bytes, clickstream_pipeline(o_, bootstrap));

    measure_kafka_limit(bootstrap, "clicks");
    measure_ingest(pipeline, "read_clicks", "Kafka -> bronze partitioned by day (best of 3)");
    measure("gold", "bronze -> gold (60 s watermark, dedup on event_id, 1-minute window)", o_.events, run_args("revenue"));
    measure("silver", "bronze -> silver MERGE by customer", o_.events, run_args("customers"));
    measure_batch_limit(pipeline, "revenue", "bronze_clicks", "clicks", "DuckDB: the per-minute recount of bronze in one query");
    measure_end_to_end(pipeline, {"read_clicks", "revenue", "customers"});
    measure_idle_run(bootstrap, {"clicks"});
    measure_peer(bootstrap, "clicks");
  }

  void run_wide(const std::string& bootstrap) {
    workload_ = "wide";
    WideFeed feed;
    feed.events = wide_events(o_);
    say("producing " + std::to_string(feed.events) + " wide events (42 members, nested objects and arrays) to " +
        std::to_string(o_.partitions) + " partitions (zstd)");
    int64_t bytes = produce_feed(bootstrap, "tracker", feed.events, [&](int64_t i) { return wide_event(feed, i); });
    say(std::to_string(bytes / feed.events) + " bytes an event");

    pipeline_file_ = join_path(dir_, "wide.toml");
    write_file_atomic(pipeline_file_, wide_pipeline(o_, bootstrap));
    Pipeline pipeline = load_pipeline(pipeline_file_);

    measure_kafka_limit(bootstrap, "tracker", feed.events);
    measure_ingest(pipeline, "read_tracker", "Kafka -> bronze, 38 typed columns (best of 3)", feed.events);
    measure("gold", "bronze -> gold (60 s watermark, dedup on event_id, 1-minute window by event type)", feed.events,
            run_args("activity"));
    measure("silver", "bronze -> silver MERGE by user (10k keys)", feed.events, run_args("users"));
    measure_batch_limit(pipeline, "activity", "bronze_tracker", "tracker", "DuckDB: the per-minute recount of bronze in one query",
                        feed.events);
    measure_end_to_end(pipeline, {"read_tracker", "activity", "users"}, feed.events);
    measure_idle_run(bootstrap, {"tracker"});
  }

  // The shop's ingest and gold with the lake (tables and checkpoints) on an object store, against
  // the same on the local disk in the same run; and the requests each run sent to the store, per
  // batch, at two batch sizes.
  void run_store(const std::string& bootstrap) {
    workload_ = "store";
    OrderFeed feed;
    feed.events = store_events(o_);
    say("producing " + std::to_string(feed.events) + " order events; the lake on " + o_.store_url + " and on the local disk");
    produce_order_feed(bootstrap, "orders_store", feed);
    std::string prefix = o_.store_url;
    while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
    prefix += "/lakestream-bench-" + new_uuid();
    struct Lake {
      std::string name, where, url;
    };
    for (const Lake& lake : {Lake{"local", "the local disk", join_path(dir_, "store-local")},
                             Lake{"store", o_.store_url, prefix}}) {
      pipeline_file_ = join_path(dir_, "store_" + lake.name + ".toml");
      write_file_atomic(pipeline_file_, store_pipeline(bootstrap, lake.url, feed.events));
      bool remote = lake.name == "store";
      measure_on_store("ingest_" + lake.name, "Kafka -> bronze on " + lake.where + " (4 batches)", feed.events,
                       "read_orders", remote);
      measure_on_store("gold_" + lake.name, "bronze -> gold on " + lake.where, feed.events, "hourly_sales", remote);
      if (remote)
        measure_on_store("ingest_store_small", "Kafka -> bronze on " + lake.where + " (16 batches)", feed.events,
                         "read_small", remote);
      expect(count_rows("bronze_orders"), feed.events, "rows in bronze_orders on " + lake.where);
    }
    auto store = storage::open_store(prefix, load_pipeline(pipeline_file_).storage);
    for (const auto& object : store->list("")) store->remove(object.key);
  }

  // The shop's orders put to a new Kinesis stream, then read: by a plain GetRecords reader (the
  // limit) and by the ingest stream into bronze, each the best of three.
  void run_kinesis() {
    workload_ = "kinesis";
    KinesisSettings settings;
    settings.stream = "lakestream-bench-" + new_uuid().substr(0, 8);
    settings.endpoint = o_.kinesis_endpoint;
    KinesisClient kinesis(settings);
    OrderFeed feed;
    feed.events = o_.kinesis_events;
    say("putting " + count_text(feed.events) + " order events to Kinesis stream " + settings.stream + " (" +
        std::to_string(o_.kinesis_shards) + " shards) at " + o_.kinesis_endpoint);
    kinesis.create_stream(o_.kinesis_shards);
    int64_t bytes = 0;
    std::vector<std::pair<std::string, std::string>> records;
    for (int64_t i = 0; i < feed.events; i++) {
      std::string value = order_event(feed, i);
      bytes += static_cast<int64_t>(value.size());
      records.push_back({value.substr(12, value.find(',') - 12), std::move(value)});  // keyed by order_id
      if (records.size() == 5000 || i + 1 == feed.events) {
        kinesis.put_records(records);
        records.clear();
      }
    }
    Pipeline pipeline = use_pipeline(bytes, kinesis_pipeline(o_.kinesis_endpoint, settings.stream));
    auto limit = measure_best_of(3, "kinesis_limit", "plain GetRecords reader, records dropped (best of 3)", feed.events,
                                 {"kinesis-limit", o_.kinesis_endpoint, settings.stream});
    expect(parse_count(limit.out, "the Kinesis-limit reader"), feed.events, "records read by the plain reader");
    measure_ingest(pipeline, "read_orders", "Kinesis -> bronze (decode, Parquet, Delta commit; best of 3)", feed.events);
  }

  // One run of `stream` (not quiet: its batch lines and the store's request count are read).
  void measure_on_store(const std::string& name, const std::string& what, int64_t events, const std::string& stream,
                        bool remote) {
    say(name + ": " + what);
    ChildRun run = run_measured(binary_, {"run", "-p", pipeline_file_, stream}, dir_);
    Measurement m{workload_, name, what, events, run.seconds, run.cpu_seconds, run.peak_rss_mib};
    std::istringstream lines(run.out);
    std::string line;
    m.batches = 0;
    m.store_requests = 0;
    while (std::getline(lines, line)) {
      if (line.rfind(stream + ": batch ", 0) == 0) m.batches++;
      auto at = line.find(" store request");
      if (at == std::string::npos) continue;
      // "N store requests (...), A MB sent, B MB received"
      m.store_requests = std::stoll(line.substr(0, at));
      auto sent = line.rfind(", ", line.find(" MB sent"));
      auto received = line.rfind(", ", line.find(" MB received"));
      if (sent != std::string::npos) m.store_mb_sent = std::stod(line.substr(sent + 2));
      if (received != std::string::npos) m.store_mb_received = std::stod(line.substr(received + 2));
    }
    if (!remote) m.store_requests = m.batches = -1;
    result_.measurements.push_back(m);
  }

  // After a workload's feed (`feed_bytes` sent): its pipeline file, <dir>/<workload>.toml, written and loaded.
  Pipeline use_pipeline(int64_t feed_bytes, const std::string& text) {
    if (result_.feed_bytes == 0) result_.feed_bytes = feed_bytes;
    pipeline_file_ = join_path(dir_, workload_ + ".toml");
    write_file_atomic(pipeline_file_, text);
    return load_pipeline(pipeline_file_);
  }

  void run_cdc(const std::string& bootstrap) {
    workload_ = "cdc";
    CdcFeed feed;
    feed.events = o_.events;
    feed.keys = cdc_keys(o_);
    say("producing " + std::to_string(feed.events) + " Debezium change events (c/u/d over " + count_text(feed.keys) +
        " customers) to " + std::to_string(o_.partitions) + " partitions (zstd)");
    int64_t bytes = produce_feed(bootstrap, "customers", feed.events, [&](int64_t i) { return cdc_event(feed, i); });
    Pipeline pipeline = use_pipeline(bytes, cdc_pipeline(o_, bootstrap));

    measure_kafka_limit(bootstrap, "customers");
    measure_ingest(pipeline, "read_customers", "Kafka -> bronze, the rows out of Debezium envelopes (best of 3)");
    measure("silver", "bronze -> silver MERGE by customer, deletes applied", o_.events, run_args("customers"));
    // The batch limit: the change log replayed by one DuckDB query (the newest change per key,
    // deletes left out), what check does.
    measure("batch_limit", "DuckDB: the replay of the change log in bronze in one query", o_.events,
            {"query", "-p", pipeline_file_, "-f", "csv",
             "SELECT count(*) FILTER (WHERE _op <> 'd') AS customers FROM (SELECT _op FROM bronze_customers QUALIFY "
             "row_number() OVER (PARTITION BY id ORDER BY _source_lsn DESC, partition DESC, \"offset\" DESC) = 1)"});
    measure_end_to_end(pipeline, {"read_customers", "customers"});
    measure_idle_run(bootstrap, {"customers"});
  }

  // Silver at a steady rate of updates with random keys into a large table (issue: cheaper
  // upserts): every batch touches every file of the table. Copy-on-write rewrites them all;
  // merge-on-read writes the batch's rows and a deletion vector per file. Both must give the
  // same table.
  void run_upserts(const std::string& bootstrap) {
    workload_ = "upserts";
    UpdateFeed feed;
    feed.keys = o_.upsert_keys;
    feed.per_second = o_.upsert_rate;
    int64_t events = o_.upsert_rate * o_.upsert_batches;
    say("producing " + count_text(events) + " updates of random keys among " + count_text(feed.keys) + " orders (" +
        std::to_string(o_.upsert_batches) + " seconds at " + count_text(o_.upsert_rate) + " updates/s)");
    int64_t bytes = produce_feed(bootstrap, "updates", events, [&](int64_t i) { return update_event(feed, i); });
    Pipeline pipeline = use_pipeline(bytes, upserts_pipeline(o_, bootstrap));
    measure("ingest", "Kafka -> bronze, a batch per " + count_text(o_.upsert_rate) + " updates", events,
            run_args("read_updates"));
    expect(count_rows("bronze_updates"), events, "rows in bronze_updates");
    {
      sql::Database db;
      sql::Connection con(db);
      for (const char* table : {"orders_copy_on_write", "orders_merge_on_read", "orders_change_feed"}) {
        say("seeding " + std::string(table) + " with " + count_text(feed.keys) + " orders");
        seed_orders_table(con, pipeline.table_path(table), bronze_columns(*pipeline.find_source("updates")), 1,
                          feed.keys, o_.keys_per_file);
      }
    }
    int64_t batch_bytes = 0;
    for (const auto& file : delta::load_snapshot(pipeline.table_path("bronze_updates")).files) batch_bytes += file.size;
    measure_upserts(pipeline, "silver_copy_on_write", "bronze -> silver MERGE, random keys, copy-on-write", events,
                    batch_bytes);
    measure_upserts(pipeline, "silver_merge_on_read", "the same, merge-on-read (deletion vectors)", events, batch_bytes);
    measure_upserts(pipeline, "silver_change_feed", "the same, merge-on-read with the change data feed", events, batch_bytes);
    // The tables hold the same rows (10M-key symmetric differences, one query each).
    for (const std::string other : {"orders_merge_on_read", "orders_change_feed"}) {
      ChildRun differ = run_measured(
          binary_, {"query", "-p", pipeline_file_, "-f", "csv",
                    "SELECT (SELECT count(*) FROM (SELECT * FROM orders_copy_on_write EXCEPT ALL SELECT * FROM " + other +
                        ")) + (SELECT count(*) FROM (SELECT * FROM " + other + " EXCEPT ALL SELECT * FROM orders_copy_on_write))"},
          dir_);
      expect(parse_count(differ.out, "the rows the silver tables differ in"), 0,
             "rows in which " + other + " differs from the copy-on-write table");
      expect(count_rows(other), feed.keys, "rows in " + other);
    }
  }

  // One run of the silver stream `name` (silver_<mode>) over every bronze batch, then what its
  // commits wrote, from the table's log: data files, and vectors (a file added again with one).
  void measure_upserts(const Pipeline& pipeline, const std::string& name, const std::string& what, int64_t events,
                       int64_t batch_bytes) {
    std::string table_path = pipeline.table_path(pipeline.find_stream(name)->table);
    int64_t seeded = delta::latest_version(table_path);
    measure(name, what, events, run_args(name));
    Measurement& m = result_.measurements.back();
    m.batches = m.bytes_written = m.vector_bytes = m.change_bytes = 0;
    m.batch_bytes = batch_bytes;
    for (const auto& commit : delta::read_commits(table_path, seeded + 1, delta::latest_version(table_path))) {
      if (commit.adds.empty() && commit.removes.empty()) continue;
      m.batches++;
      std::set<std::string> removed;
      for (const auto& remove : commit.removes) removed.insert(remove.path);
      for (const auto& add : commit.adds) {
        if (add.deletion_vector && removed.count(add.path)) m.vector_bytes += add.deletion_vector->size_in_bytes;
        else m.bytes_written += add.size;
      }
      for (const auto& changed : commit.change_data) m.change_bytes += changed.size;
    }
    expect(m.batches, o_.upsert_batches, "batches of " + name);
    // Each batch's time by its progress record (this run's are the newest).
    std::vector<double> batch_ms;
    for (const auto& record : ProgressLog(pipeline.checkpoint_path(name)).read(static_cast<size_t>(m.batches)))
      batch_ms.push_back(record["durationMs"].value("triggerExecution", 0.0));
    if (batch_ms.size() >= 2) {
      m.first_batch_ms = batch_ms.front();
      std::vector<double> later(batch_ms.begin() + 1, batch_ms.end());
      std::sort(later.begin(), later.end());
      m.later_batch_ms = later[later.size() / 2];
    }
  }

  // A continuous run (`--interval 0s`) while events are produced at a steady rate: how long each
  // takes from its Kafka timestamp to bronze and to silver, and the CPU the run used.
  void run_freshness(const std::string& bootstrap) {
    workload_ = "freshness";
    for (int64_t rate : o_.freshness_rates) {
      std::string topic = "fresh_" + count_text(rate);
      run_continuously_at(bootstrap, topic, rate, o_.freshness_seconds, freshness_pipeline(bootstrap, topic));
    }
  }

  // The service: the same at the rates a service sees, each for a minute, with a target latency; what it costs (cores, CPU per event against a plain run of the same events), how
  // fresh it keeps the tables, and the files they hold at the end (compaction while it runs).
  void run_service(const std::string& bootstrap) {
    workload_ = "service";
    for (int64_t rate : o_.service_rates) {
      std::string topic = "service_" + count_text(rate);
      std::string pipeline = service_pipeline(bootstrap, topic, o_);
      run_continuously_at(bootstrap, topic, rate, o_.service_seconds, pipeline);
      // The plain run's cost per event, over the very events the service read, from nothing.
      Pipeline plain = load_pipeline(pipeline_file_);
      reset_streams(plain, {"read_fresh", "latest_fresh", "sales_fresh"});
      int64_t sent = result_.get("service", "bronze_" + count_text(rate)).events;
      measure("plain_" + count_text(rate), "one plain run of the same " + count_text(sent) + " events, from nothing", sent,
              {"run", "-p", pipeline_file_, "-q"});
    }
  }

  // Produces `rate` events/s for `seconds` into `topic` while `run --continuous --interval 0s`
  // of `pipeline_text` reads it; then records the latencies to bronze, silver and gold, and (for
  // the service) the files of each table.
  void run_continuously_at(const std::string& bootstrap, const std::string& topic, int64_t rate, double seconds,
                           const std::string& pipeline_text) {
    pipeline_file_ = join_path(dir_, workload_ + "_" + count_text(rate) + ".toml");
    write_file_atomic(pipeline_file_, pipeline_text);
    Pipeline pipeline = load_pipeline(pipeline_file_);
    char line[128];
    std::snprintf(line, sizeof line, "%s: %lld events/s for %.0f s into `run --continuous --interval 0s`", topic.c_str(),
                  static_cast<long long>(rate), seconds);
    say(line);
    auto run = start_measured(binary_, {"run", "-p", pipeline_file_, "--continuous", "--interval", "0s", "-q"}, dir_);
    OrderFeed feed;
    feed.events = std::numeric_limits<int64_t>::max();
    int64_t sent = produce_paced(bootstrap, topic, rate, seconds, [&](int64_t i) {
      std::string value = order_event(feed, i);
      return KeyedEvent{value.substr(12, value.find(',') - 12), value};
    });
    // The last events reach bronze, then silver (which lags most), before the run is stopped.
    std::string bronze = pipeline.table_path("bronze_fresh");
    for (int i = 0; i < 300 && count_rows("bronze_fresh") < sent; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int64_t last_bronze = delta::latest_version(bronze);
    for (int i = 0; i < 1200 && read_up_to(pipeline.table_path("orders_fresh")) < last_bronze; i++)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::this_thread::sleep_for(std::chrono::seconds(2));
    ChildRun stopped = stop_measured(run);
    size_t bronze_step = result_.measurements.size();  // the first of the three steps recorded next
    record_latency("bronze_" + count_text(rate), "Kafka -> bronze at " + count_text(rate) + " events/s", sent, stopped,
                   bronze_latency(bronze));
    const bool merge_on_read = workload_ == "service" && o_.service_silver == "merge-on-read";
    record_latency("silver_" + count_text(rate),
                   std::string("Kafka -> silver") + (merge_on_read ? " (merge-on-read)" : "") + " at " + count_text(rate) +
                       " events/s",
                   sent, stopped,
                   downstream_latency(bronze, pipeline.table_path("orders_fresh")));
    record_latency("gold_" + count_text(rate),
                   "closing event -> gold row, windows closed at " + count_text(rate) + " events/s", sent, stopped,
                   closed_window_latency(bronze, pipeline.table_path("sales_fresh"), kFreshWindow), 1);
    if (workload_ == "service") {
      Measurement& step = result_.measurements[bronze_step];
      step.bronze_files = static_cast<int64_t>(delta::load_snapshot(bronze).files.size());
      step.silver_files = static_cast<int64_t>(delta::load_snapshot(pipeline.table_path("orders_fresh")).files.size());
      step.gold_files = static_cast<int64_t>(delta::load_snapshot(pipeline.table_path("sales_fresh")).files.size());
    }
  }

  // `least` is how many samples the latency must have (by default every event sent).
  void record_latency(const std::string& name, const std::string& what, int64_t sent, const ChildRun& run,
                      const Latency& latency, int64_t least = -1) {
    if (latency.events < (least < 0 ? sent : least))
      throw Error("benchmark: " + name + " holds " + std::to_string(latency.events) + " of the " +
                  std::to_string(least < 0 ? sent : least) + " samples expected");
    Measurement m{workload_, name, what, sent, run.seconds, run.cpu_seconds, run.peak_rss_mib};
    m.latency_samples = latency.events;
    m.p50_ms = latency.p50_ms;
    m.p99_ms = latency.p99_ms;
    m.max_ms = latency.max_ms;
    result_.measurements.push_back(m);
  }

  void measure_kafka_limit(const std::string& bootstrap, const std::string& topic) {
    measure_kafka_limit(bootstrap, topic, o_.events);
  }
  void measure_kafka_limit(const std::string& bootstrap, const std::string& topic, int64_t events) {
    // The limit is the best of three reads: a slow one (the machine busy for a moment)
    // would flatter every ratio against it.
    auto limit = measure_best_of(3, "kafka_limit", "plain librdkafka consumer, records dropped (best of 3)", events,
                                 {"kafka-limit", bootstrap, topic});
    expect(parse_count(limit.out, "the Kafka-limit consumer"), events,
           "records read by the plain consumer (the broker dropped some: pass more --partitions)");
  }

  // Ingest is the best of three, each from an empty table and checkpoint, so that the ratio to
  // the Kafka limit compares like with like.
  void measure_ingest(const Pipeline& pipeline, const std::string& stream, const std::string& what) {
    measure_ingest(pipeline, stream, what, o_.events);
  }
  void measure_ingest(const Pipeline& pipeline, const std::string& stream, const std::string& what, int64_t events) {
    const Stream& ingest = *pipeline.find_stream(stream);
    measure_best_of(3, "ingest", what, events, run_args(stream), [&] { reset_streams(pipeline, {stream}); });
    expect(count_rows(ingest.table), events, "rows in " + ingest.table);
  }

  void measure_batch_limit(const Pipeline& pipeline, const std::string& gold_stream, const std::string& bronze,
                           const std::string& source, const std::string& what) {
    measure_batch_limit(pipeline, gold_stream, bronze, source, what, o_.events);
  }
  void measure_batch_limit(const Pipeline& pipeline, const std::string& gold_stream, const std::string& bronze,
                           const std::string& source, const std::string& what, int64_t events) {
    const Stream& gold = *pipeline.find_stream(gold_stream);
    std::string sql = "SELECT count(*) AS windows, sum(_events) AS events FROM (SELECT " + window_key_sql(gold) + ", " +
                      window_aggregates_sql(gold) + " FROM (" +
                      window_events_sql(gold, bronze_columns(*pipeline.find_source(source)), bronze) + ") GROUP BY ALL)";
    measure("batch_limit", what, events, {"query", "-p", pipeline_file_, "-f", "csv", sql});
  }

  // One `lakestream run` of ingest, gold and silver over the whole backlog, from nothing: what a
  // user's scheduled job costs. Then check must find no PROBLEM in what it wrote.
  void measure_end_to_end(const Pipeline& pipeline, const std::vector<std::string>& streams) {
    measure_end_to_end(pipeline, streams, o_.events);
  }
  void measure_end_to_end(const Pipeline& pipeline, const std::vector<std::string>& streams, int64_t events) {
    reset_streams(pipeline, streams);
    std::vector<std::string> args = {"run", "-p", pipeline_file_, "-q"};
    args.insert(args.end(), streams.begin(), streams.end());
    measure("end_to_end", streams.size() == 2 ? "one run: ingest + silver over the backlog"
                                               : "one run: ingest + gold + silver over the backlog",
            events, args);
  }

  // The hand-written aggregator users write instead (bench/peers/), on the same topic.
  void measure_peer(const std::string& bootstrap, const std::string& topic) {
    std::string script = join_path(dir_, "seed004_aggregator.py");
    write_file_atomic(script, kSeed004Aggregator);
    say("peer: seed 004's Python aggregator (json.loads per record, confluent-kafka)");
    ChildRun run = run_measured("/usr/bin/python3", {script, bootstrap, topic}, dir_);
    std::istringstream counts(run.out);
    int64_t read = 0, late = 0, windows = 0;
    counts >> read >> late >> windows;
    expect(read, o_.events, "records read by the Python aggregator");
    result_.measurements.push_back({workload_, "peer_aggregator",
                                    "seed 004's Python aggregator (dropped " + std::to_string(late) + " as late)",
                                    o_.events, run.seconds, run.cpu_seconds, run.peak_rss_mib});
  }

  void say(const std::string& line) { progress_ << "bench: " << workload_ << ": " << line << "\n" << std::flush; }

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
    result_.measurements.push_back({workload_, name, what, events, best.seconds, best.cpu_seconds, best.peak_rss_mib});
    return best;
  }

  void reset_streams(const Pipeline& pipeline, const std::vector<std::string>& streams) {
    for (const auto& name : streams) {
      const Stream& stream = *pipeline.find_stream(name);
      remove_all(pipeline.table_path(stream.table));
      remove_all(pipeline.table_path(stream.table + "_quarantine"));
      if (!stream.deleted_table().empty()) remove_all(pipeline.table_path(stream.deleted_table()));
      remove_all(join_path(pipeline.checkpoints_dir, name));
    }
  }

  // `lakestream run` of the whole pipeline with nothing new, against the least such a run must
  // do: a plain client fetching the watermarks of the same topics' partitions (bench/peers/).
  void measure_idle_run(const std::string& bootstrap, const std::vector<std::string>& topics) {
    measure_median("idle_run", "`lakestream run` with nothing new", {binary_, "run", "-p", pipeline_file_, "-q"});
    std::vector<std::string> peer = {watermark_peer(), bootstrap};
    peer.insert(peer.end(), topics.begin(), topics.end());
    measure_median("watermarks_peer", "a plain librdkafka client fetching the same partitions' watermarks", peer);
  }

  void measure_median(const std::string& name, const std::string& what, const std::vector<std::string>& command) {
    std::vector<ChildRun> runs;
    std::vector<std::string> args(command.begin() + 1, command.end());
    for (int i = 0; i < o_.idle_runs; i++) runs.push_back(run_measured(command[0], args, dir_));
    std::sort(runs.begin(), runs.end(), [](const ChildRun& a, const ChildRun& b) { return a.seconds < b.seconds; });
    const ChildRun& median = runs[runs.size() / 2];
    result_.measurements.push_back({workload_, name, what + " (median of " + std::to_string(o_.idle_runs) + ")", 0,
                                    median.seconds, median.cpu_seconds, median.peak_rss_mib});
  }

  // Beside the binary (the build tree), or in lib/lakestream/ (an installed package).
  std::string watermark_peer() const {
    std::string bin_dir = binary_.substr(0, binary_.find_last_of('/'));
    for (const std::string& path : {join_path(bin_dir, "lakestream-watermark-peer"),
                                    join_path(bin_dir, "../lib/lakestream/lakestream-watermark-peer")})
      if (path_exists(path)) return path;
    throw Error("benchmark: lakestream-watermark-peer is neither beside " + binary_ + " nor in ../lib/lakestream/");
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

  // The last source version the newest batch of the table at `table_path` read (-1 when none).
  // The newest commit may be a compaction's, which reads no source: the batch's is the newest
  // commit with a record (a wait for silver to read the last bronze version once waited out its
  // two minutes when silver's compaction committed last).
  static int64_t read_up_to(const std::string& table_path) {
    const int64_t oldest = delta::oldest_commit(table_path);
    for (int64_t version = delta::latest_version(table_path); version >= 0 && version >= oldest; version--) {
      auto record = commit_record_of(delta::read_commits(table_path, version, version).front().commit_info);
      if (record && record->table) return record->table->to_version;
    }
    return -1;
  }

  int64_t count_rows(const std::string& table) {
    ChildRun run = run_measured(binary_, {"query", "-p", pipeline_file_, "-f", "csv", "SELECT count(*) FROM " + table}, dir_);
    return parse_count(run.out, "the count of " + table);
  }

  void expect(int64_t got, int64_t wanted, const std::string& what) {
    if (got != wanted)
      throw Error("benchmark: " + std::to_string(got) + " " + what + ", expected " + std::to_string(wanted));
  }

  // A checkpoint of a table with a week of tombstones: classic, and with v2 sidecars, in the same run.
  void run_checkpoints() {
    workload_ = "checkpoints";
    const int64_t tombstones = o_.checkpoint_tombstones;
    for (const char* policy : {"classic", "v2"}) {
      say("a table with " + count_text(tombstones) + " tombstones, " + policy + " checkpoints");
      CheckpointGrowth growth = measure_checkpoint_growth(join_path(dir_, std::string("checkpoints_") + policy), policy, tombstones);
      const std::string how = std::string(policy) == "v2" ? "v2, tombstones in sidecars" : "classic";
      result_.measurements.push_back({workload_, std::string(policy) + "_first",
                                      "first checkpoint (" + how + ")", tombstones, growth.first.seconds,
                                      growth.first.cpu_seconds, growth.first.peak_rss_mib});
      result_.measurements.push_back({workload_, std::string(policy) + "_next",
                                      "10 commits later (" + how + ")", tombstones, growth.next.seconds,
                                      growth.next.cpu_seconds, growth.next.peak_rss_mib});
    }
  }

  void set_targets() {
    if (selected("checkpoints")) {
      // A checkpoint costs what changed since the one before, not the week of tombstones.
      double ratio = result_.get("checkpoints", "v2_next").cpu_seconds /
                     std::max(1e-9, result_.get("checkpoints", "classic_next").cpu_seconds);
      result_.targets.push_back({"checkpoints", "v2_next_vs_classic",
                                 "a later v2 checkpoint <= 0.1 of a classic one's CPU (ratio)", ratio, ratio <= 0.1});
    }
    for (const char* workload : {"shop", "clickstream", "wide", "cdc"})
      if (selected(workload)) set_workload_targets(workload);
    if (selected("store")) {
      // Requests per batch do not grow with the batch: a batch is a listing, a data file, a
      // commit and the checkpoint's records, whatever its size (a data file over 16 MiB goes up
      // in parts: bytes, not events).
      auto per_batch = [&](const char* name) {
        const Measurement& m = result_.get("store", name);
        return m.batches > 0 ? static_cast<double>(m.store_requests) / m.batches : 0;
      };
      double growth = per_batch("ingest_store") / std::max(1e-9, per_batch("ingest_store_small"));
      result_.targets.push_back({"store", "requests_per_batch",
                                 "store requests per ingest batch at 4x the batch size <= 1.25x (ratio)", growth,
                                 growth <= 1.25});
    }
    if (selected("kinesis")) {
      // Reading is the limit's whole work; ingest decodes, writes Parquet and commits besides, at
      // the same 5 reads a second per shard.
      double share = result_.get("kinesis", "ingest").per_second() /
                     std::max(1e-9, result_.get("kinesis", "kinesis_limit").per_second());
      result_.targets.push_back({"kinesis", "ingest_vs_kinesis", "ingest >= 0.5 of the plain GetRecords reader (ratio)",
                                 share, share >= 0.5});
    }
    if (selected("upserts")) {
      // With vectors a batch writes its own rows and a vector per file it touches, not the
      // files: its bytes follow the batch, not the table.
      const Measurement& m = result_.get("upserts", "silver_merge_on_read");
      double ratio = static_cast<double>(m.bytes_written) / static_cast<double>(std::max<int64_t>(1, m.batch_bytes));
      result_.targets.push_back({"upserts", "bytes_vs_batch",
                                 "merge-on-read data bytes written <= 3x the batches' own (ratio)", ratio, ratio <= 3});
    }
    set_service_targets();
    if (!selected("freshness")) return;
    for (int64_t rate : o_.freshness_rates) {
      double bronze = result_.get("freshness", "bronze_" + count_text(rate)).p99_ms;
      double limit = rate <= 10'000 ? 300 : 1000;
      result_.targets.push_back({"freshness", "bronze_p99_" + count_text(rate),
                                 "bronze p99 < " + std::to_string(static_cast<int>(limit)) + " ms at " + count_text(rate) +
                                     " events/s (ms)",
                                 bronze, bronze < limit});
      double silver = result_.get("freshness", "silver_" + count_text(rate)).p99_ms;
      result_.targets.push_back({"freshness", "silver_p99_" + count_text(rate),
                                 "silver p99 < 1000 ms at " + count_text(rate) + " events/s (ms)", silver, silver < 1000});
    }
  }

  // The service's targets (the continuous-mode issue's table): cores for the three streams, and
  // p99 latencies to bronze and to silver and gold, per rate.
  void set_service_targets() {
    if (!selected("service")) return;
    auto add = [&](const std::string& name, const std::string& goal, double value, bool met) {
      result_.targets.push_back({"service", name, goal, value, met});
    };
    for (int64_t rate : o_.service_rates) {
      std::string r = count_text(rate);
      const Measurement& bronze = result_.get("service", "bronze_" + r);
      double cores = bronze.seconds > 0 ? bronze.cpu_seconds / bronze.seconds : 0;
      if (rate <= 10'000) {
        double limit = rate <= 1'000 ? 0.1 : 0.3;
        char goal[96];
        std::snprintf(goal, sizeof goal, "cores for the three streams <= %.1f at %s events/s (cores)", limit, r.c_str());
        add("cores_" + r, goal, cores, cores <= limit);
      }
      double bronze_limit = rate <= 10'000 ? 300 : 1000, downstream_limit = rate <= 10'000 ? 1000 : 2000;
      add("bronze_p99_" + r, "bronze p99 < " + std::to_string(static_cast<int>(bronze_limit)) + " ms at " + r + " events/s (ms)",
          bronze.p99_ms, bronze.p99_ms < bronze_limit);
      for (const char* table : {"silver", "gold"}) {
        double p99 = result_.get("service", std::string(table) + "_" + r).p99_ms;
        add(std::string(table) + "_p99_" + r,
            std::string(table) + " p99 < " + std::to_string(static_cast<int>(downstream_limit)) + " ms at " + r +
                " events/s (ms)",
            p99, p99 < downstream_limit);
      }
    }
  }

  // The targets of every workload, as same-run ratios; the shop's own (silver into 10M keys, the
  // idle run, memory) besides.
  void set_workload_targets(const std::string& w) {
    auto add = [&](const std::string& name, const std::string& goal, double value, bool met) {
      result_.targets.push_back({w, name, goal, value, met});
    };
    double kafka = result_.get(w, "kafka_limit").per_second();
    double ingest = result_.get(w, "ingest").per_second();
    double share = ingest / kafka;
    add("ingest_vs_kafka", "ingest >= 0.6 of the Kafka limit (ratio)", share, share >= 0.6);
    // The cdc workload has no gold: its silver is measured against the batch replay instead.
    std::string against_batch = w == "cdc" ? "silver" : "gold";
    double behind = result_.get(w, "batch_limit").per_second() / result_.get(w, against_batch).per_second();
    add(against_batch + "_vs_batch", against_batch + " within 2x of the batch limit (batch/" + against_batch + ")", behind,
        behind <= 2);
    std::string silver = w == "shop" ? "silver_" + count_text(*std::max_element(o_.silver_keys.begin(), o_.silver_keys.end()))
                                     : "silver";
    double silver_share = result_.get(w, silver).per_second() / ingest;
    add("silver_vs_ingest", "silver >= 0.5 of ingest's rate (ratio)", silver_share, silver_share >= 0.5);
    double end_to_end = result_.get(w, "end_to_end").per_second() / kafka;
    add("end_to_end_vs_kafka", std::string("one run of ingest + ") + (w == "cdc" ? "" : "gold + ") +
                                   "silver >= 1/3 of the Kafka limit (ratio)", end_to_end,
        end_to_end >= 1.0 / 3);
    if (w == "clickstream") {
      double peer = result_.get(w, "end_to_end").per_second() / result_.get(w, "peer_aggregator").per_second();
      add("end_to_end_vs_peer", "one run >= 4x seed 004's Python aggregator (ratio)", peer, peer >= 4);
    }
    double idle_ratio = result_.get(w, "idle_run").seconds / result_.get(w, "watermarks_peer").seconds;
    add("idle_vs_watermarks", "a run with nothing new within 2x of a client fetching the watermarks (ratio)", idle_ratio,
        idle_ratio <= 2);
    if (w != "shop") return;
    add("gold_rate", "gold >= 2M events/s (events/s)", result_.get(w, "gold").per_second(),
        result_.get(w, "gold").per_second() >= 2e6);
    double idle_ms = result_.get(w, "idle_run").seconds * 1000;
    add("idle_run", "a run with nothing new < 50 ms (ms)", idle_ms, idle_ms < 50);
    // Capped batches: memory follows max_offsets_per_trigger, not the backlog. Allow 50% for
    // what grows with the table (its log, the batch count).
    double growth = result_.get(w, "ingest_capped").peak_rss_mib / result_.get(w, "ingest_small").peak_rss_mib;
    add("ingest_rss", "ingest peak RSS with " + std::to_string(o_.backlog_factor) + "x the backlog <= 1.5x (ratio)", growth,
        growth <= 1.5);
  }

  BenchOptions o_;
  std::ostream& progress_;
  std::string dir_;
  std::string binary_;
  std::string pipeline_file_;  // the workload's
  std::string workload_;
  BenchResult result_;
};

}  // namespace

const Measurement& BenchResult::get(const std::string& workload, const std::string& name) const {
  for (const auto& m : measurements)
    if (m.workload == workload && m.name == name) return m;
  throw Error("internal: the benchmark has no measurement " + workload + "/" + name);
}

bool BenchResult::all_targets_met() const {
  return std::all_of(targets.begin(), targets.end(), [](const Target& t) { return t.met; });
}

BenchResult run_bench(const BenchOptions& options, std::ostream& progress) { return BenchRun(options, progress).run(); }

}  // namespace lakestream::bench
