// `lakestream produce`: send JSON lines (a file or stdin) to a Kafka topic, one message per line.
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>

#include "broker/embedded_broker.h"
#include "cli/commands.h"
#include "pipeline/pipeline.h"
#include "source/json_producer.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/files.h"
#include "util/plural.h"

namespace lakestream::cli {

namespace {

struct Args {
  std::string topic;
  std::string bootstrap = "embedded";
  bool bootstrap_given = false;  // --bootstrap overrides the pipeline's
  std::string pipeline = "lakestream.toml";
  bool pipeline_given = false;  // without -p, ./lakestream.toml is used when it exists
  std::string key;
  std::string file = "-";
};

void produce(const Args& args) {
  KafkaSettings kafka{args.bootstrap, {}};
  std::string topic = args.topic;
  std::string key = args.key;
  bool use_pipeline = args.pipeline_given || (!args.bootstrap_given && path_exists(args.pipeline));
  if (use_pipeline) {
    // The pipeline's connection, and its source's topic and key field unless given here.
    Pipeline pipeline = load_pipeline(args.pipeline);
    kafka = pipeline.kafka;
    if (args.bootstrap_given) kafka.bootstrap = args.bootstrap;
    const Source* source = nullptr;
    for (const auto& s : pipeline.sources)
      if (topic.empty() ? pipeline.sources.size() == 1 : s.topic == topic) source = &s;
    if (topic.empty() && !source)
      throw Error(args.pipeline + " has " + std::to_string(pipeline.sources.size()) +
                  " sources: say which topic with -t TOPIC");
    if (source && source->is_kinesis())
      throw Error("source " + source->name + " reads the Kinesis stream " + source->kinesis.stream +
                  "; lakestream produce writes to Kafka. Put records with the AWS CLI (aws kinesis put-records) or an "
                  "AWS SDK; see docs/kinesis.md");
    if (topic.empty()) topic = source->topic;
    if (key.empty() && source) key = source->key_field;
  }
  if (topic.empty()) throw Error("say which topic to send to: -t TOPIC (or -p PIPELINE with one source)");
  if (kafka.topics.empty()) kafka.topics = {topic};

  ProduceResult result;
  if (args.file == "-") {
    result = produce_json_lines(kafka, topic, key, std::cin);
  } else {
    std::ifstream in(args.file, std::ios::binary);
    if (!in) throw Error("cannot open " + args.file + " to read JSON lines from: " + std::strerror(errno));
    result = produce_json_lines(kafka, topic, key, in);
  }
  std::cout << "delivered " << counted(result.delivered, "message", "messages") << " to " << topic;
  if (result.without_key) std::cout << " (" << result.without_key << " without a key: no field '" << key << "')";
  std::cout << std::endl;
  if (result.failed)
    throw Error(counted(result.failed, "message was", "messages were") + " not delivered to " + topic +
                "; the first error: " + result.first_error);
  if (result.gone)
    throw Error(std::to_string(result.gone) + " of the " + counted(result.delivered, "message", "messages") + " sent to " +
                topic + (result.gone == 1 ? " is" : " are") + " already gone: the brokers' retention deleted them (" +
                result.gone_detail + "). A stream that has not read them will not see them. The embedded broker keeps "
                "its --retention per partition (" + format_byte_size(kEmbeddedDefaultRetentionBytes) + " unless set): "
                "start it with more (lakestream broker --retention 2GiB), give the topic more partitions (lakestream "
                "broker --topic " + topic +
                ":16), or send less at a time and run the pipeline in between");
}

}  // namespace

void add_produce_command(CLI::App& app) {
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("produce", "Send JSON lines to a Kafka topic, one message per line");
  cmd->add_option("-t,--topic", args->topic, "the topic");
  cmd->add_option("--bootstrap", args->bootstrap,
                  "the brokers, host:port,... or \"embedded\" for `lakestream broker`")
      ->capture_default_str();
  cmd->add_option("-p,--pipeline", args->pipeline,
                  "take the brokers, topic and key field from this pipeline file's [kafka] and source "
                  "(default: ./lakestream.toml when it exists and --bootstrap is not given)");
  cmd->add_option("--key", args->key, "the top-level JSON field whose value is the message key");
  cmd->add_option("file", args->file, "the JSON-lines file; - or nothing for stdin");
  cmd->callback([args, cmd] {
    args->bootstrap_given = cmd->count("--bootstrap") > 0;
    args->pipeline_given = cmd->count("--pipeline") > 0;
    produce(*args);
  });
}

}  // namespace lakestream::cli
