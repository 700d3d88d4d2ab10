// `lakestream broker` and `lakestream produce` as a user runs them: a broker process serving
// until SIGTERM, its address file, producing to it, and `broker reset` emptying its topics.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "broker/broker_address.h"
#include "source/kafka_reader.h"
#include "support/test_support.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {
namespace {

using testing::run_lakestream;
using testing::TempDir;

// A `lakestream broker` child process; SIGKILLed if a test ends without stopping it.
class BrokerProcess {
 public:
  BrokerProcess(const std::vector<std::string>& args, const std::string& output) {
    pid_ = fork();
    if (pid_ == 0) {
      int fd = open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      std::vector<char*> argv;
      std::string bin = testing::lakestream_bin();
      argv.push_back(bin.data());
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(127);
    }
  }
  ~BrokerProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  int pid() const { return pid_; }
  // Sends `sig` and waits for the exit status (-1 if killed by a signal or not done in 10 s).
  int stop(int sig) {
    kill(pid_, sig);
    for (int i = 0; i < 1000; i++) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  int pid_ = -1;
};

BrokerAddress wait_for_address(const std::string& file) {
  for (int i = 0; i < 500; i++) {
    if (auto address = read_broker_address(file)) return *address;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  throw Error("the broker did not write " + file + " within 5 s");
}

int64_t records_in(const std::string& bootstrap, const std::string& topic) {
  KafkaReader reader({bootstrap, {}}, topic);
  int64_t total = 0;
  for (const auto& [partition, w] : reader.watermarks()) total += w.high - w.low;
  return total;
}

TEST(BrokerCommand, ServesProducesResetsAndStopsCleanly) {
  TempDir dir;
  std::string file = dir / "run/broker.json";
  BrokerProcess broker({"broker", "--topic", "orders:3", "--topic", "customers", "--address-file", file},
                       dir / "broker.out");
  BrokerAddress address = wait_for_address(file);
  EXPECT_EQ(address.pid, broker.pid());
  ASSERT_EQ(address.topics.size(), 2u);
  EXPECT_EQ(address.topics[0].name, "orders");
  EXPECT_EQ(address.topics[0].partitions, 3);

  // bootstrap "embedded" (the default) finds the broker through the address file.
  std::string lines;
  for (int i = 0; i < 50; i++) lines += "{\"order_id\": \"o" + std::to_string(i) + "\", \"amount\": 5}\n";
  auto produced = run_lakestream({"produce", "-t", "orders", "--key", "order_id"}, dir.path(), lines,
                                 {"LAKESTREAM_BROKER_FILE=" + file});
  EXPECT_EQ(produced.exit_code, 0) << produced.err;
  EXPECT_EQ(produced.out, "delivered 50 messages to orders\n");
  // From a file, with an explicit address.
  testing::write_text(dir / "more.jsonl", "{\"order_id\": \"x\"}\n\n{\"order_id\": \"y\"}\n");
  produced = run_lakestream({"produce", "-t", "orders", "--bootstrap", address.bootstrap, "more.jsonl"}, dir.path());
  EXPECT_EQ(produced.exit_code, 0) << produced.err;
  EXPECT_EQ(produced.out, "delivered 2 messages to orders\n");
  EXPECT_EQ(records_in(address.bootstrap, "orders"), 52);
  EXPECT_EQ(KafkaReader({address.bootstrap, {}}, "orders").partitions().size(), 3u);

  // `broker reset` wipes the topics: same topics, empty, on a new address.
  auto reset = run_lakestream({"broker", "reset", "--address-file", file}, dir.path());
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  BrokerAddress after = *read_broker_address(file);
  EXPECT_EQ(after.generation, address.generation + 1);
  EXPECT_NE(reset.out.find("now at " + after.bootstrap), std::string::npos) << reset.out;
  EXPECT_EQ(records_in(after.bootstrap, "orders"), 0);
  EXPECT_EQ(records_in(after.bootstrap, "customers"), 0);
  EXPECT_EQ(KafkaReader({after.bootstrap, {}}, "orders").partitions().size(), 3u);

  // A second broker on the same address file is refused while the first runs.
  auto second = run_lakestream({"broker", "--topic", "orders", "--address-file", file}, dir.path());
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("an embedded broker is already running (pid " + std::to_string(broker.pid())),
            std::string::npos)
      << second.err;

  // SIGTERM: clean exit 0, the address file removed.
  EXPECT_EQ(broker.stop(SIGTERM), 0);
  EXPECT_FALSE(path_exists(file));
  std::string out = read_file(dir / "broker.out");
  EXPECT_NE(out.find("embedded Kafka broker at " + address.bootstrap), std::string::npos) << out;
  EXPECT_NE(out.find("; each partition keeps 256 MiB (--retention)"), std::string::npos) << out;
  EXPECT_NE(out.find("address written to " + file), std::string::npos) << out;
  EXPECT_NE(out.find("stopped"), std::string::npos) << out;

  // With the broker gone, "embedded" says how to start one.
  auto orphan = run_lakestream({"produce", "-t", "orders"}, dir.path(), "{}\n", {"LAKESTREAM_BROKER_FILE=" + file});
  EXPECT_EQ(orphan.exit_code, 1);
  EXPECT_NE(orphan.err.find("bootstrap = \"embedded\" but no embedded broker is running: start one with "
                            "`lakestream broker --topic orders:3` (it writes " + file + ")"),
            std::string::npos)
      << orphan.err;
}

TEST(BrokerCommand, SigintAlsoStopsCleanly) {
  TempDir dir;
  std::string file = dir / "broker.json";
  BrokerProcess broker({"broker", "--brokers", "2", "--topic", "t:2", "--address-file", file}, dir / "out");
  BrokerAddress address = wait_for_address(file);
  EXPECT_EQ(std::count(address.bootstrap.begin(), address.bootstrap.end(), ','), 1) << address.bootstrap;
  EXPECT_EQ(broker.stop(SIGINT), 0);
  EXPECT_FALSE(path_exists(file));
}

TEST(BrokerCommand, ResetWithoutABrokerSaysSo) {
  TempDir dir;
  auto reset = run_lakestream({"broker", "reset", "--address-file", dir / "none.json"}, dir.path());
  EXPECT_EQ(reset.exit_code, 1);
  EXPECT_NE(reset.err.find("no embedded broker is running for " + dir / "none.json"), std::string::npos)
      << reset.err;
}

TEST(BrokerCommand, BadRetentionIsRefusedWithTheForm) {
  TempDir dir;
  auto result = run_lakestream({"broker", "--retention", "lots", "--address-file", dir / "b.json"}, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("--retention lots: give a size per partition, as in 2GiB or 512MiB"), std::string::npos)
      << result.err;
  EXPECT_FALSE(path_exists(dir / "b.json"));
}

TEST(BrokerCommand, BadTopicSpecIsAUsageError) {
  TempDir dir;
  auto result = run_lakestream({"broker", "--topic", "orders:x", "--address-file", dir / "b.json"}, dir.path());
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.err.find("topic 'orders:x': the partition count must be a number"), std::string::npos)
      << result.err;
  EXPECT_FALSE(path_exists(dir / "b.json"));
}

}  // namespace
}  // namespace lakestream
