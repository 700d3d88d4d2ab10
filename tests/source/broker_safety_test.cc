// The embedded broker as a newcomer meets it: retention that drops records is told by `produce`,
// the broker and `run`; a mistyped topic is an error, not a new topic; each project can run its
// own named broker, and `broker reset` wipes only the one it names.
#include <gtest/gtest.h>

#include <string>

#include "broker/broker_address.h"
#include "source/kafka_reader.h"
#include "support/test_support.h"
#include "util/error.h"

namespace lakestream::testing {
namespace {

std::string events_pipeline(const std::string& bootstrap, const std::string& topic) {
  return "[kafka]\nbootstrap = \"" + bootstrap + "\"\n\n[sources.events]\ntopic = \"" + topic +
         "\"\n[sources.events.schema]\nid = \"bigint\"\nnote = \"string\"\n\n"
         "[streams.read_events]\nkind = \"ingest\"\nsource = \"events\"\ntable = \"bronze_events\"\n";
}

// `n` events with ids from `first`, each about `bytes` long.
std::string events(int first, int n, size_t bytes = 40) {
  std::string lines;
  for (int i = first; i < first + n; i++) {
    std::string line = "{\"id\":" + std::to_string(i) + ",\"note\":\"";
    line += std::string(bytes > line.size() + 3 ? bytes - line.size() - 3 : 1, 'x') + "\"}\n";
    lines += line;
  }
  return lines;
}

BrokerAddress wait_for_address(const std::string& file) {
  for (int i = 0; i < 500; i++) {
    if (auto address = read_broker_address(file)) return *address;
    usleep(10000);
  }
  throw Error("the broker did not write " + file + " within 5 s");
}

std::map<int32_t, Watermarks> watermarks_of(const std::string& bootstrap, const std::string& topic) {
  return KafkaReader({bootstrap, {}}, topic).watermarks();
}

TEST(BrokerSafety, RecordsDroppedByRetentionAreToldBySendBrokerAndRun) {
  TempDir dir;
  std::vector<std::string> env{"LAKESTREAM_BROKER_FILE=" + dir / "run/broker.json"};
  BackgroundProcess broker({"broker", "--name", "big", "--topic", "events:1", "--retention", "5MiB"}, dir.path(), env);
  BrokerAddress address = wait_for_address(dir / "run/broker-big.json");
  write_text(dir / "lakestream.toml", events_pipeline("embedded:big", "events"));

  // 8000 events of 1 KiB: 8 MiB into one partition, past the broker's 5 MiB.
  CommandResult sent = run_lakestream({"produce"}, dir.path(), events(0, 8000, 1024), env);
  EXPECT_EQ(sent.exit_code, 1) << sent.out << sent.err;
  EXPECT_NE(sent.out.find("delivered 8000 messages to events"), std::string::npos) << sent.out;
  EXPECT_NE(sent.err.find("of the 8000 messages sent to events are already gone: the brokers' retention deleted them "
                          "(partition 0 now starts at offset "),
            std::string::npos)
      << sent.err;
  EXPECT_NE(sent.err.find("lakestream broker --topic events:16"), std::string::npos) << sent.err;
  int64_t low = watermarks_of(address.bootstrap, "events").at(0).low;
  ASSERT_GT(low, 0);
  EXPECT_NE(sent.err.find(std::to_string(low) + " of the 8000"), std::string::npos) << sent.err;

  // The broker says so in its log, within its one-second watch (maybe in several lines, as it went).
  std::string told = " to " + std::to_string(low - 1) + " of events partition 0 (each partition keeps about 5 MiB)";
  for (int i = 0; i < 50 && broker.out().find(told) == std::string::npos; i++) usleep(100000);
  EXPECT_NE(broker.out().find("Z retention dropped offsets 0 to "), std::string::npos) << broker.out();
  EXPECT_NE(broker.out().find(told), std::string::npos) << broker.out();

  // The first run reads what is left and says where it began.
  CommandResult run = run_lakestream({"run"}, dir.path(), "", env);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("warning: partition 0 of events begins at offset " + std::to_string(low) +
                         ", not 0: the records before were deleted (retention) before this stream first read them"),
            std::string::npos)
      << run.out;
  CommandResult count = run_lakestream({"query", "-f", "csv", "select count(*) as n, min(id) as first from bronze_events"},
                                       dir.path(), "", env);
  EXPECT_EQ(count.out, "n,first\n" + std::to_string(8000 - low) + "," + std::to_string(low) + "\n") << count.err;
}

TEST(BrokerSafety, AMistypedTopicIsAnErrorAndIsNotCreated) {
  TempDir dir;
  std::vector<std::string> env{"LAKESTREAM_BROKER_FILE=" + dir / "broker.json"};
  BackgroundProcess broker({"broker", "--topic", "orders:2"}, dir.path(), env);
  BrokerAddress address = wait_for_address(dir / "broker.json");
  write_text(dir / "lakestream.toml", events_pipeline("embedded", "ordres"));

  for (const char* command : {"run", "status"}) {
    CommandResult r = run_lakestream({command}, dir.path(), "", env);
    EXPECT_NE(r.exit_code, 0) << command;
    EXPECT_NE((r.out + r.err).find("topic ordres does not exist on brokers " + address.bootstrap), std::string::npos)
        << command << ": " << r.out << r.err;
  }
  CommandResult sent = run_lakestream({"produce"}, dir.path(), events(0, 1), env);
  EXPECT_EQ(sent.exit_code, 1);
  EXPECT_NE(sent.err.find("topic ordres does not exist"), std::string::npos) << sent.err;
  // Still unknown to the broker: nothing created it on the way.
  EXPECT_THROW(KafkaReader({address.bootstrap, {}}, "ordres").partitions(), Error);
}

// On a named broker, the hint for a mistyped topic names the broker, and the broker gains the
// topic while it runs: the events of its other topics stay.
TEST(BrokerSafety, AMissingTopicIsAddedToTheRunningNamedBroker) {
  TempDir dir;
  std::vector<std::string> env{"LAKESTREAM_BROKER_FILE=" + dir / "run/broker.json"};
  BackgroundProcess broker({"broker", "--name", "shop", "--topic", "orders:2"}, dir.path(), env);
  BrokerAddress address = wait_for_address(dir / "run/broker-shop.json");
  write_text(dir / "lakestream.toml", events_pipeline("embedded:shop", "orders"));
  ASSERT_EQ(run_lakestream({"produce"}, dir.path(), events(0, 5), env).exit_code, 0);
  write_text(dir / "lakestream.toml", events_pipeline("embedded:shop", "payments"));
  CommandResult missing = run_lakestream({"run"}, dir.path(), "", env);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("topic payments does not exist on brokers " + address.bootstrap +
                             ": add it to the running embedded broker with `lakestream broker add-topic payments:3 "
                             "--name shop`, or fix the topic name"),
            std::string::npos)
      << missing.err;

  CommandResult added = run_lakestream({"broker", "add-topic", "payments:3", "--name", "shop"}, dir.path(), "", env);
  EXPECT_EQ(added.exit_code, 0) << added.err;
  EXPECT_EQ(added.out, "topic payments added to the embedded broker shop (3 partitions)\n");
  EXPECT_EQ(watermarks_of(address.bootstrap, "payments").size(), 3u);
  int64_t kept = 0;
  for (const auto& [partition, marks] : watermarks_of(address.bootstrap, "orders")) kept += marks.high;
  EXPECT_EQ(kept, 5) << "the other topic's events stay";
  EXPECT_EQ(read_broker_address(dir / "run/broker-shop.json")->topics.size(), 2u);
  EXPECT_EQ(run_lakestream({"run"}, dir.path(), "", env).exit_code, 0);
  CommandResult again = run_lakestream({"broker", "add-topic", "payments:3", "--name", "shop"}, dir.path(), "", env);
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("topic payments already exists on the embedded broker (3 partitions)"), std::string::npos)
      << again.err;
}

TEST(BrokerSafety, TwoProjectsEachRunTheirOwnBroker) {
  TempDir dir;
  std::vector<std::string> env{"LAKESTREAM_BROKER_FILE=" + dir / "run/broker.json"};
  BackgroundProcess shop({"broker", "--name", "shop", "--topic", "events:1"}, dir.path(), env);
  BackgroundProcess clicks({"broker", "--name", "clicks", "--topic", "events:2"}, dir.path(), env);
  BrokerAddress shop_address = wait_for_address(dir / "run/broker-shop.json");
  BrokerAddress clicks_address = wait_for_address(dir / "run/broker-clicks.json");
  EXPECT_NE(shop_address.bootstrap, clicks_address.bootstrap);
  write_text(dir / "shop/lakestream.toml", events_pipeline("embedded:shop", "events"));
  write_text(dir / "clicks/lakestream.toml", events_pipeline("embedded:clicks", "events"));

  // The same topic name in each, each with its own events; produce takes ./lakestream.toml.
  EXPECT_EQ(run_lakestream({"produce"}, dir / "shop", events(0, 3), env).exit_code, 0);
  EXPECT_EQ(run_lakestream({"produce"}, dir / "clicks", events(100, 5), env).exit_code, 0);
  for (const char* project : {"shop", "clicks"}) {
    CommandResult run = run_lakestream({"run"}, dir / project, "", env);
    EXPECT_EQ(run.exit_code, 0) << project << ": " << run.err;
  }
  auto counted = [&](const char* project) {
    return run_lakestream({"query", "-f", "csv", "select count(*) as n, min(id) as first from bronze_events"},
                          dir / project, "", env).out;
  };
  EXPECT_EQ(counted("shop"), "n,first\n3,0\n");
  EXPECT_EQ(counted("clicks"), "n,first\n5,100\n");

  // A second broker of a name in use is refused, saying how to run another.
  CommandResult second = run_lakestream({"broker", "--name", "shop", "--topic", "x"}, dir.path(), "", env);
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("an embedded broker named shop is already running (pid "), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("start this one under another name (--name NAME"), std::string::npos) << second.err;

  // Reset names its broker: the shop's topics are wiped, the clicks' kept.
  CommandResult reset = run_lakestream({"broker", "reset", "--name", "shop"}, dir.path(), "", env);
  EXPECT_EQ(reset.exit_code, 0) << reset.err;
  std::string shop_now = read_broker_address(dir / "run/broker-shop.json")->bootstrap;
  EXPECT_EQ(watermarks_of(shop_now, "events").at(0).high, 0);
  int64_t clicks_held = 0;
  for (const auto& [p, w] : watermarks_of(clicks_address.bootstrap, "events")) clicks_held += w.high - w.low;
  EXPECT_EQ(clicks_held, 5);
}

TEST(BrokerSafety, NoBrokerHintNamesThePipelinesTopics) {
  TempDir dir;
  std::vector<std::string> env{"LAKESTREAM_BROKER_FILE=" + dir / "broker.json"};
  write_text(dir / "lakestream.toml", events_pipeline("embedded:lab", "clicks"));
  CommandResult run = run_lakestream({"run"}, dir.path(), "", env);
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("bootstrap = \"embedded:lab\" but no embedded broker named lab is running: start one with "
                         "`lakestream broker --name lab --topic clicks:3` (it writes " + dir / "broker-lab.json)"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace lakestream::testing
