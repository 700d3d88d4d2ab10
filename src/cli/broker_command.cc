// `lakestream broker`: serve an embedded Kafka broker; `lakestream broker reset`: wipe its topics;
// `lakestream broker bench`: measure its cost at the tail of a short and a long log;
// `lakestream broker add-topic`: give it one more while it runs.
#include <iostream>
#include <memory>
#include <optional>

#include "bench/broker_fetch.h"
#include "broker/broker_server.h"
#include "cli/commands.h"
#include "util/byte_size.h"
#include "util/error.h"

namespace lakestream::cli {

void add_broker_command(CLI::App& app) {
  struct Args {
    int brokers = 1;
    std::vector<std::string> topics;
    std::string name;
    std::string address_file;
    bool schema_registry = false;
    int registry_port = 0;
    std::string retention = format_byte_size(kEmbeddedDefaultRetentionBytes);
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "broker", "Serve an embedded Kafka broker (in memory, on 127.0.0.1) for development, tests and the demo");
  cmd->add_option("--brokers", args->brokers, "how many brokers the cluster has")->check(CLI::Range(1, 16));
  cmd->add_option("--topic", args->topics, "a topic to create, NAME:PARTITIONS (repeat for more)")
      ->allow_extra_args(false);
  cmd->add_option("--retention", args->retention,
                  "how much each partition keeps, in memory, before its oldest records are deleted (the broker "
                  "says so in its log): 2GiB, 512MiB, ...")
      ->capture_default_str();
  cmd->add_option("--name", args->name,
                  "the broker's name: pipeline files with bootstrap = \"embedded:NAME\" use it (one broker per name)");
  cmd->add_option("--address-file", args->address_file,
                  "where to write the address (default: a per-user file for each name)");
  cmd->add_flag("--schema-registry", args->schema_registry,
                "also serve a schema registry (Confluent's REST API, Avro, in memory): schema_registry = \"embedded\" "
                "finds it");
  cmd->add_option("--registry-port", args->registry_port, "the schema registry's port (default: a free one)")
      ->check(CLI::Range(0, 65535));
  auto* add_topic = cmd->add_subcommand(
      "add-topic", "Create a topic on the running embedded broker, which keeps its other topics and events");
  auto added = std::make_shared<std::string>();
  add_topic->add_option("topic", *added, "the topic to create, NAME:PARTITIONS")->required();
  add_topic->add_option("--name", args->name, "the broker (default: the one without a name)");
  add_topic->add_option("--address-file", args->address_file, "the address file of the broker");
  auto* reset = cmd->add_subcommand(
      "reset", "Wipe every topic of the running embedded broker and create them again empty (on new ports)");
  reset->add_option("--name", args->name, "the broker to reset (default: the one without a name)");
  reset->add_option("--address-file", args->address_file, "the address file of the broker to reset");
  auto bench_options = std::make_shared<bench::BrokerFetchOptions>();
  auto* bench = cmd->add_subcommand(
      "bench", "Measure the broker's CPU and a tail consumer's latency with a short and a long log, in one run");
  bench->add_option("--short", bench_options->short_records, "records in the short partition")->capture_default_str();
  bench->add_option("--long", bench_options->long_records, "records in the long partition")->capture_default_str();
  bench->add_option("--rounds", bench_options->rounds, "rounds of fresh records read at the tail, per partition")
      ->capture_default_str();
  bench->add_option("--round-records", bench_options->round_records, "records per round")->capture_default_str();
  bench->add_option("--batch-records", bench_options->records_per_batch,
                    "records per batch the producer sends (one batch of the log each)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  bench->add_option("--dir", bench_options->dir, "the folder for the broker's address file (wiped first)")
      ->capture_default_str();

  cmd->callback([args, reset, bench, bench_options, add_topic, added] {
    if (bench->parsed()) {
      bench::BrokerFetchResult result = bench::measure_broker_fetch(*bench_options, std::cerr);
      std::cout << bench::format_broker_fetch(result);
      if (!result.within_target()) set_exit_status(1);
      return;
    }
    if (!args->name.empty()) embedded_broker_name("embedded:" + args->name);  // refuses a bad name
    if (add_topic->parsed()) {
      std::string file = args->address_file.empty() ? broker_address_file(args->name) : args->address_file;
      TopicSpec topic = parse_topic_spec(*added);
      request_add_topic(file, topic);
      std::cout << "topic " << topic.name << " added to the embedded broker" << (args->name.empty() ? "" : " " + args->name)
                << " (" << topic.partitions << (topic.partitions == 1 ? " partition)" : " partitions)") << std::endl;
      return;
    }
    if (reset->parsed()) {
      std::string file = args->address_file.empty() ? broker_address_file(args->name) : args->address_file;
      std::string bootstrap = request_broker_reset(file);
      std::cout << "embedded broker reset: topics are empty; now at " << bootstrap << std::endl;
      return;
    }
    BrokerServeOptions options;
    options.brokers = args->brokers;
    std::optional<int64_t> retention = parse_byte_size(args->retention);
    if (!retention)
      throw Error("--retention " + args->retention + ": give a size per partition, as in 2GiB or 512MiB");
    options.retention_bytes = *retention;
    options.name = args->name;
    options.address_file = args->address_file;
    options.schema_registry = args->schema_registry || args->registry_port != 0;
    options.registry_port = args->registry_port;
    for (const auto& text : args->topics) options.topics.push_back(parse_topic_spec(text));
    serve_broker(options, std::cout);
  });
}

}  // namespace lakestream::cli
