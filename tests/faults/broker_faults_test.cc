// Broker faults injected into the embedded broker (librdkafka's mock, rdkafka_mock.h): request
// errors on Fetch, ListOffsets, Metadata and Produce, and the broker going down and up. Each run
// either completes or fails with a clear error, the next run succeeds, and in the end every table
// holds what a run without faults wrote: never a gap, never a duplicate.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <chrono>
#include <functional>
#include <thread>

#include "faults/messy_lake.h"

namespace lakestream::testing {
namespace {

// Kafka protocol API keys (rdkafka_mock.h takes them as numbers).
constexpr int16_t kProduce = 0, kFetch = 1, kListOffsets = 2, kMetadata = 3;

struct BrokerFault {
  std::string name;
  std::function<void(rd_kafka_mock_cluster_t*)> inject;  // before the run
};

void push(rd_kafka_mock_cluster_t* mock, int16_t api, std::vector<rd_kafka_resp_err_t> errors) {
  rd_kafka_mock_push_request_errors_array(mock, api, errors.size(), errors.data());
}

const std::vector<BrokerFault>& faults() {
  static const std::vector<BrokerFault> all{
      {"Fetch: not leader, timed out", [](auto* m) {
         push(m, kFetch, {RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                          RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION});
       }},
      {"Fetch: unknown topic", [](auto* m) { push(m, kFetch, {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART}); }},
      {"ListOffsets: leader not available", [](auto* m) {
         push(m, kListOffsets, {RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE});
       }},
      {"ListOffsets: unknown topic", [](auto* m) { push(m, kListOffsets, {RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART}); }},
      {"Metadata: timed out", [](auto* m) {
         push(m, kMetadata, {RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT});
       }},
      {"Metadata: broker not available", [](auto* m) { push(m, kMetadata, {RD_KAFKA_RESP_ERR_BROKER_NOT_AVAILABLE}); }},
  };
  return all;
}

// Produce errors hit the sender (the idempotent producer retries them without duplicates).
void push_produce_errors(rd_kafka_mock_cluster_t* mock) {
  push(mock, kProduce, {RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT,
                        RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION});
}

// A run either ends well or says what went wrong; it never dies of a signal.
void expect_clean_outcome(const std::string& fault, const CommandResult& r) {
  EXPECT_EQ(r.signal, 0) << fault;
  if (r.exit_code != 0) {
    EXPECT_EQ(r.exit_code, 1) << fault;
    EXPECT_TRUE(r.err.find("stream read_orders failed: ") != std::string::npos) << fault << ": " << r.err;
  }
}

TEST(BrokerFaults, RequestErrorsAndADownBrokerLoseAndDoubleNothing) {
  const int sends = static_cast<int>(faults().size()) + 1;
  MessyStream stream = messy_stream(long_tests() ? 60000 : 14000, sends, 3);
  MessyLake reference;
  reference.play(stream, [&](int) { reference.run_ok(); });

  MessyLake lake;
  rd_kafka_mock_cluster_t* mock = lake.fixture().broker().mock();
  int failed = 0;
  lake.play(stream, [&](int send) {
    if (send + 1 < sends) push_produce_errors(mock);  // hits the next send
    CommandResult r;
    std::string name;
    if (send < static_cast<int>(faults().size())) {
      name = faults()[send].name;
      faults()[send].inject(mock);
      r = lake.fixture().lakestream("run");
    } else {
      // The broker goes down shortly after the run starts and comes back a second later.
      name = "broker down and up";
      std::thread outage([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
        rd_kafka_mock_broker_set_down(mock, 1);
        std::this_thread::sleep_for(std::chrono::milliseconds(1000));
        rd_kafka_mock_broker_set_up(mock, 1);
      });
      r = lake.fixture().lakestream("run");
      outage.join();
    }
    expect_clean_outcome(name, r);
    failed += r.exit_code != 0;
    rd_kafka_mock_clear_request_errors(mock, kFetch);
    rd_kafka_mock_clear_request_errors(mock, kListOffsets);
    rd_kafka_mock_clear_request_errors(mock, kMetadata);
    lake.run_ok();  // the next run succeeds
  });
  RecordProperty("failed_runs", failed);

  std::string expected = reference.contents(), actual = lake.contents();
  EXPECT_TRUE(actual == expected) << first_difference(expected, actual);
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, reference.check().out);
}

}  // namespace
}  // namespace lakestream::testing
