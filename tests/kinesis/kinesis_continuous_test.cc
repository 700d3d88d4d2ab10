// `lakestream run --continuous` on a Kinesis source: records are read soon after they are put,
// while the service polls an idle stream within Kinesis's read limits, and a service killed
// outright (SIGKILL) and started again leaves every record in bronze once.
#include <signal.h>

#include <chrono>
#include <thread>

#include "kinesis/sent_records.h"

namespace lakestream::testing {
namespace {

// Waits until bronze holds `rows` rows (or the time is up); the last count.
int64_t wait_for_rows(KinesisFixture& f, int64_t rows, int timeout_ms) {
  auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  int64_t n = -1;
  while (std::chrono::steady_clock::now() < until) {
    CommandResult r = f.lakestream("query", {"--format", "csv", "SELECT count(*) AS n FROM bronze_orders"});
    if (r.exit_code == 0 && r.out.rfind("n\n", 0) == 0) n = std::stoll(r.out.substr(2));
    if (n == rows) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return n;
}

TEST(KinesisContinuous, ReadsWhatArrivesAndSurvivesAKill) {
  KinesisFixture f(kPipeline);
  f.kinesis().create("orders", 2);
  Sent sent;
  {
    BackgroundProcess service({"run", "-p", f.pipeline().pipeline_file(), "--continuous", "--interval", "0s"},
                              f.pipeline().dir());
    sent.put(f.kinesis(), 400, 61);
    EXPECT_EQ(wait_for_rows(f, sent.good_count(), 30000), sent.good_count()) << service.out() << service.err();
    // An idle stretch: the service polls; then more records are picked up within seconds.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    auto put_at = std::chrono::steady_clock::now();
    sent.put(f.kinesis(), 300, 62);
    EXPECT_EQ(wait_for_rows(f, sent.good_count(), 30000), sent.good_count()) << service.out() << service.err();
    EXPECT_LT(std::chrono::steady_clock::now() - put_at, std::chrono::seconds(10));
    sent.put(f.kinesis(), 2000, 63);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // mid-backlog
    service.send_signal(SIGKILL);
    service.wait(10000);
  }
  BackgroundProcess again({"run", "-p", f.pipeline().pipeline_file(), "--continuous", "--interval", "0s"},
                          f.pipeline().dir());
  sent.put(f.kinesis(), 100, 64);
  EXPECT_EQ(wait_for_rows(f, sent.good_count(), 60000), sent.good_count()) << again.out() << again.err();
  again.send_signal(SIGTERM);
  CommandResult stopped = again.wait(30000);
  EXPECT_EQ(stopped.exit_code, 0) << stopped.err;
  expect_bronze_holds(f, sent);
  EXPECT_EQ(f.lakestream("check").exit_code, 0);
}

}  // namespace
}  // namespace lakestream::testing
