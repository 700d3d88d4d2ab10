// What the Avro tests share: a pipeline folder beside an embedded broker and an embedded schema
// registry, and the independent Node producer (tests/avro/produce_avro.js: Confluent's registry
// client, avsc and kafkajs) that registers schemas and sends Avro events to them.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <nlohmann/json.hpp>

#include "broker/schema_registry_server.h"
#include "support/pipeline_fixture.h"

namespace lakestream::testing {

class AvroFixture {
 public:
  // `pipeline_toml` may say @BOOTSTRAP@ and @REGISTRY@.
  AvroFixture(const std::string& pipeline_toml, const std::vector<TopicSpec>& topics)
      : pipeline_(with_registry(pipeline_toml), topics) {}

  std::string with_registry(std::string toml) const {
    for (size_t at; (at = toml.find("@REGISTRY@")) != std::string::npos;) toml.replace(at, 10, registry_.url());
    return toml;
  }

  // Runs the Node producer over `plan` ({"topic", "subject", "steps": [...]}, see produce_avro.js);
  // returns what it printed. Fails the test when it fails.
  std::string produce(const nlohmann::json& plan) {
    std::string plan_file = pipeline_.dir() + "/plan-" + std::to_string(plans_++) + ".json";
    write_text(plan_file, plan.dump());
    std::string command = "NODE_PATH=" + source_dir() + "/.deps/npm/node_modules timeout 120 node " + source_dir() +
                          "/tests/avro/produce_avro.js " + pipeline_.broker().bootstrap() + " " + registry_.url() +
                          " " + plan_file + " 2>&1";
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
      ADD_FAILURE() << "cannot run node";
      return out;
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    int status = ::pclose(pipe);
    EXPECT_EQ(status, 0) << "the Node producer failed (run scripts/setup to install it):\n" << out;
    return out;
  }

  // Sets the subject's compatibility level in the registry (BACKWARD or NONE), as an operator would.
  void set_compatibility(const std::string& subject, const std::string& level) {
    HttpResponse r = registry_.handle({"PUT", "/config/" + subject, nlohmann::json{{"compatibility", level}}.dump()});
    ASSERT_EQ(r.status, 200) << r.body;
  }

  PipelineFixture& pipeline() { return pipeline_; }
  SchemaRegistryServer& registry() { return registry_; }

 private:
  SchemaRegistryServer registry_;  // before the pipeline, whose file names its URL
  PipelineFixture pipeline_;
  int plans_ = 0;
};

}  // namespace lakestream::testing
