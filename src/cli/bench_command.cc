// `lakestream bench [--events N] [--json FILE]`: measures the pipeline's stages against the Kafka
// and batch limits in one run on the embedded broker (src/bench/). `lakestream kafka-limit` (not
// listed) is the plain consumer the benchmark runs as a child process.
#include <fstream>
#include <iostream>

#include "bench/bench_report.h"
#include "bench/bench_run.h"
#include "bench/kafka_limit.h"
#include "bench/kinesis_limit.h"
#include "cli/commands.h"
#include "util/error.h"

namespace lakestream::cli {

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Measure ingest, gold, silver, end to end, start-up and memory against the Kafka and "
                                          "batch limits, on the embedded broker");
  auto options = std::make_shared<bench::BenchOptions>();
  auto json_file = std::make_shared<std::string>();
  cmd->add_option("-w,--workload", options->workloads,
                  "Workloads to run: shop, clickstream, wide, cdc, upserts, freshness, service, checkpoints, store with "
                  "--store, and kinesis with --kinesis-endpoint (default: all but service, checkpoints, store and kinesis)")
      ->delimiter(',')
      ->check(CLI::IsMember({"shop", "clickstream", "wide", "cdc", "upserts", "freshness", "service", "checkpoints", "store",
                             "kinesis"}))
      ->capture_default_str();
  cmd->add_option("-n,--events", options->events, "Events to produce for each workload (the wide workload: 1/8 of them)")->capture_default_str();
  cmd->add_option("--freshness-rates", options->freshness_rates, "Events/s produced in the freshness steps")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--freshness-seconds", options->freshness_seconds, "How long each freshness step produces")
      ->capture_default_str();
  cmd->add_option("--service-rates", options->service_rates, "Events/s produced in the service steps")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--service-seconds", options->service_seconds, "How long each service step produces")
      ->capture_default_str();
  cmd->add_option("--service-target-latency", options->service_target_latency,
                  "The [service] target_latency of the service steps' pipeline (bronze's)")
      ->capture_default_str();
  cmd->add_option("--service-downstream-target-latency", options->service_downstream_target_latency,
                  "The target_latency of the service steps' silver and gold streams")
      ->capture_default_str();
  cmd->add_option("--service-silver", options->service_silver,
                  "How the service steps' silver replaces rows: copy-on-write (the shop's) or merge-on-read (deletion "
                  "vectors)")
      ->check(CLI::IsMember({"copy-on-write", "merge-on-read"}))
      ->capture_default_str();
  cmd->add_option("--checkpoint-tombstones", options->checkpoint_tombstones,
                  "tombstones of the checkpoints workload's table (a week of a service at 1,000 events/s: about a million)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--upsert-keys", options->upsert_keys, "keys of the upserts workload's seeded silver tables")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--upsert-rate", options->upsert_rate, "updates a second (one batch) in the upserts workload")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--upsert-batches", options->upsert_batches, "batches (seconds) of updates in the upserts workload")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--partitions", options->partitions, "partitions of the topic (>= 12 for millions of events)")
      ->capture_default_str();
  cmd->add_option("--max-offsets-per-trigger", options->max_offsets_per_trigger, "the ingest batch cap")
      ->capture_default_str();
  cmd->add_option("--silver-keys", options->silver_keys, "sizes of the seeded silver tables (keys)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--backlog-factor", options->backlog_factor, "the memory check compares ingest of events/F with events")
      ->capture_default_str();
  cmd->add_option("--dir", options->dir, "the folder for the pipeline, tables and checkpoints (wiped first)")
      ->capture_default_str();
  cmd->add_option("--store", options->store_url,
                  "the store workload's object store: s3://bucket/prefix or az://container/prefix, credentials in "
                  "AWS_* / AZURE_STORAGE_* (a fresh prefix under it is written, then removed)");
  cmd->add_option("--kinesis-endpoint", options->kinesis_endpoint,
                  "the kinesis workload's Kinesis endpoint (credentials in AWS_*): a stream is created there, fed "
                  "and read");
  cmd->add_option("--kinesis-events", options->kinesis_events, "order events the kinesis workload puts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--kinesis-shards", options->kinesis_shards, "shards of the kinesis workload's stream")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--json", *json_file, "also write the results as JSON to this file");
  cmd->callback([options, json_file] {
    bench::BenchResult result = bench::run_bench(*options, std::cerr);
    std::cout << bench::format_bench(result);
    if (!json_file->empty()) {
      std::ofstream out(*json_file);
      out << bench::bench_json(result).dump(2) << "\n";
      if (!out) throw Error("cannot write " + *json_file);
    }
    // A missed target fails the run, so that tracking it needs no reading of the table.
    if (!result.all_targets_met()) {
      std::cerr << "bench: targets missed:";
      for (const auto& t : result.targets)
        if (!t.met) std::cerr << " " << t.workload << "/" << t.name;
      std::cerr << "\n";
      set_exit_status(1);
    }
  });

  auto* limit = app.add_subcommand("kafka-limit", "Read a topic to its end with a plain consumer, print the count");
  limit->group("");  // the benchmark's own step, not a user command
  auto bootstrap = std::make_shared<std::string>();
  auto topic = std::make_shared<std::string>();
  limit->add_option("bootstrap", *bootstrap)->required();
  limit->add_option("topic", *topic)->required();
  limit->callback([bootstrap, topic] { std::cout << bench::consume_to_end(*bootstrap, *topic) << "\n"; });

  auto* kinesis_limit =
      app.add_subcommand("kinesis-limit", "Read a Kinesis stream to its tip with a plain GetRecords reader, print the count");
  kinesis_limit->group("");  // the benchmark's own step, not a user command
  auto endpoint = std::make_shared<std::string>();
  auto stream = std::make_shared<std::string>();
  kinesis_limit->add_option("endpoint", *endpoint)->required();
  kinesis_limit->add_option("stream", *stream)->required();
  kinesis_limit->callback([endpoint, stream] { std::cout << bench::read_kinesis_to_end(*endpoint, *stream) << "\n"; });
}

}  // namespace lakestream::cli
