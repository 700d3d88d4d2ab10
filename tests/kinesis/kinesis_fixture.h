// What the Kinesis tests share: kinesalite (a Kinesis emulator from npm, in memory) on a free
// port, the independent producer (tests/kinesis/kinesis_producer.js: the AWS SDK's Kinesis
// client) that creates streams, puts records, splits and merges shards, and a pipeline folder
// whose sources read the emulator.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "storage/storage_emulators.h"
#include "util/files.h"
#include "support/pipeline_fixture.h"

namespace lakestream::testing {

// Where the producer put a record.
struct PutRecord {
  std::string shard;
  std::string sequence;
};

class Kinesalite {
 public:
  Kinesalite()
      : server_({emulator_bin("kinesalite"), "--port", std::to_string(port_), "--createStreamMs", "0",
                 "--deleteStreamMs", "0", "--updateStreamMs", "0", "--shardLimit", "1000"},
                port_, dir_ / "kinesalite.log") {
    // The emulator takes any keys; lakestream still wants some (it signs every request).
    setenv("AWS_ACCESS_KEY_ID", "test", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "test", 1);
    setenv("AWS_REGION", "us-east-1", 1);
  }

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  // Runs the producer over `steps`; returns the JSON lines it printed. Fails the test when it fails.
  std::vector<nlohmann::json> run(const nlohmann::json& steps) {
    std::string plan = dir_ / ("plan-" + std::to_string(plans_++) + ".json");
    write_text(plan, nlohmann::json{{"steps", steps}}.dump());
    std::string command = "NODE_PATH=" + source_dir() + "/.deps/npm/node_modules timeout 300 node " + source_dir() +
                          "/tests/kinesis/kinesis_producer.js " + endpoint() + " " + plan + " 2>" +
                          std::string(dir_ / "producer.err");
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) {
      ADD_FAILURE() << "cannot run node";
      return {};
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
    int status = ::pclose(pipe);
    EXPECT_EQ(status, 0) << "the Kinesis producer failed (run scripts/setup to install it):\n"
                         << read_file(dir_ / "producer.err");
    std::vector<nlohmann::json> lines;
    size_t start = 0;
    for (size_t end; (end = out.find('\n', start)) != std::string::npos; start = end + 1)
      lines.push_back(nlohmann::json::parse(out.substr(start, end - start)));
    return lines;
  }

  void create(const std::string& stream, int shards) { run({{{"create", stream}, {"shards", shards}}}); }

  // Puts `records` ({"data", "key"} each) with PutRecords (or PutRecord one by one); returns where
  // each went, in their order.
  std::vector<PutRecord> put(const std::string& stream, const nlohmann::json& records, bool one_by_one = false) {
    std::vector<PutRecord> puts;
    for (const auto& line : run({{{one_by_one ? "put_record" : "put_records", stream}, {"records", records}}}))
      puts.push_back({line.at("shard").get<std::string>(), line.at("sequence").get<std::string>()});
    EXPECT_EQ(puts.size(), records.size());
    return puts;
  }

 private:
  TempDir dir_;
  int port_ = free_port();
  ChildServer server_;
  int plans_ = 0;
};

// A proxy in front of the emulator that does what Kinesis does under strain or over time
// (tests/kinesis/faulty_kinesis_proxy.js): "throttle", "expire", "retire:SHARD" or "meter".
class FaultyKinesisProxy {
 public:
  FaultyKinesisProxy(int kinesis_port, const std::string& mode)
      : server_({"node", source_dir() + "/tests/kinesis/faulty_kinesis_proxy.js", std::to_string(port_),
                 std::to_string(kinesis_port), mode},
                port_, dir_ / "proxy.log") {}
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // What it has printed so far.
  std::string log() const { return read_file(dir_ / "proxy.log"); }

 private:
  TempDir dir_;
  int port_ = free_port();
  ChildServer server_;
};

// `toml` with every @KINESIS@ replaced by `endpoint`.
inline std::string with_kinesis(std::string toml, const std::string& endpoint) {
  for (size_t at; (at = toml.find("@KINESIS@")) != std::string::npos;) toml.replace(at, 9, endpoint);
  return toml;
}

// A pipeline folder whose pipeline may say @KINESIS@ for the emulator's endpoint. (Its embedded
// Kafka broker stands by unused: the pipelines of these tests read Kinesis only.)
class KinesisFixture {
 public:
  explicit KinesisFixture(const std::string& toml) : pipeline_(with_kinesis(toml, kinesis_.endpoint()), {{"unused", 1}}) {}

  Kinesalite& kinesis() { return kinesis_; }
  PipelineFixture& pipeline() { return pipeline_; }
  CommandResult lakestream(const std::string& command, const std::vector<std::string>& args = {},
                           const std::vector<std::string>& env = {}) {
    return pipeline_.lakestream(command, args, env);
  }
  std::string query(const std::string& sql) { return pipeline_.query(sql); }

 private:
  Kinesalite kinesis_;  // before the pipeline, whose file names its endpoint
  PipelineFixture pipeline_;
};

}  // namespace lakestream::testing
