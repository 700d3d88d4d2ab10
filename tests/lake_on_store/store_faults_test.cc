// The store failing under a run: answering 503 to everything, answering 503 for a while, and
// going away mid-run. A run fails cleanly naming the store (never its secret) or completes, and
// the runs after it, with the store back, end with the same tables and check as a local run.
#include <thread>

#include "faults/messy_lake.h"
#include "lake_on_store/store_lake.h"

namespace lakestream::testing {
namespace {

class StoreFaults : public ::testing::TestWithParam<Emulator> {};

TEST_P(StoreFaults, AFailingStoreStopsARunCleanlyAndTheNextRunCompletes) {
  PipelineFixture local(shop_pipeline(), {{"orders", 3}});
  play_shop(local, [&] { ASSERT_EQ(local.lakestream("run").exit_code, 0); });
  const std::string expected = lake_contents(local, /*with_quarantine=*/false);

  StoreEmulator store(GetParam());
  PipelineFixture f(with_lake(shop_pipeline(), store.lake_section("shop")), {{"orders", 3}});
  auto through = [&](int port) { f.write_pipeline(with_lake(shop_pipeline(), store.lake_section("shop", port))); };
  auto expect_clean_failure = [&](const CommandResult& r, const std::string& what) {
    EXPECT_EQ(r.signal, 0) << what;
    if (r.exit_code == 0) return;  // completed: as good
    EXPECT_EQ(r.exit_code, 1) << what << ": " << r.err;
    EXPECT_NE(r.err.find("lake/shop"), std::string::npos) << what << ": the error names the store: " << r.err;
    EXPECT_EQ((r.out + r.err).find(store.secret()), std::string::npos) << what;
  };

  auto batches = shop_batches();
  const std::vector<std::string> sends{"1", "2", "3", "3", "4", "5"};
  for (size_t i = 0; i < sends.size(); i++) {
    f.produce("orders", batches.at(sends[i]), "order_id");
    if (i == 1) {
      // Every request answered 503: retried, then a clean failure naming the store and the answer.
      FlakyProxy down(store.port(), -1);
      through(down.port());
      CommandResult r = f.lakestream("run");
      EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
      expect_clean_failure(r, "503 to everything");
      EXPECT_NE(r.err.find("503"), std::string::npos) << r.err;
    } else if (i == 2) {
      // Throttled for a while (2 answers of 503; the pipeline allows 3 tries): retries carry the run.
      FlakyProxy busy(store.port(), 2);
      through(busy.port());
      CommandResult r = f.lakestream("run");
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    } else if (i == 3) {
      // The store goes away in the middle of a run.
      FlakyProxy proxy(store.port(), 0);
      through(proxy.port());
      CommandResult r;
      std::thread run([&] { r = f.lakestream("run"); });
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      proxy.stop();
      run.join();
      expect_clean_failure(r, "store gone mid-run");
    }
    through(0);
    CommandResult r = f.lakestream("run");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check.txt")) << check.err;
  std::string contents = lake_contents(f, /*with_quarantine=*/false);
  EXPECT_TRUE(contents == expected) << first_difference(expected, contents);
}

INSTANTIATE_TEST_SUITE_P(Emulators, StoreFaults, ::testing::Values(Emulator::S3rver, Emulator::Azurite),
                         [](const auto& info) { return std::string(emulator_name(info.param)); });

}  // namespace
}  // namespace lakestream::testing
