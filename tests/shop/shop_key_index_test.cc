// A merge-on-read silver finds the rows each batch replaces through its key index
// (sinks/key_index.h) from a run's second batch on. Over generated updates (orders changing
// status out of order, resends, cancels that delete the order and later events that bring it
// back), read in batches of one bronze file, it must hold what a copy-on-write silver of the same
// stream holds (which reads its files, no index), say in its progress records and in `status`
// how many keys the index holds, and check clean. A copy-on-write silver of rising order ids with
// updates of recent and old orders and new ids far below the rest (so that its files' ranges
// overlap) finds the files holding a batch's keys by their key sets (sinks/file_key_sets.h),
// says so in `status`, and checks clean.
#include <random>
#include <vector>

#include "shop/shop_scenario.h"

namespace lakestream::testing {
namespace {

// Silver merging on read with deletes, a batch per bronze file; and the same stream copy-on-write.
std::string two_silvers() {
  std::string silver = "order_by = \"event_time\"\ndeletes = \"status = 'cancelled'\"\nmax_files_per_trigger = 1\n";
  return replaced(shop_pipeline(), "order_by = \"event_time\"\n", silver + "deletion_vectors = true\n") +
         "\n[streams.latest_orders_copied]\nkind = \"latest\"\nfrom = \"bronze_orders\"\ntable = \"orders_copied\"\n"
         "key = [\"order_id\"]\n" + silver;
}

// 25 updates of 30 orders: statuses at random minutes (older than the order's newest state now
// and then), resends, cancels.
std::string generated_updates(std::mt19937& random, int send) {
  static const char* statuses[] = {"placed", "paid", "shipped", "cancelled", "returned"};
  std::string lines, previous;
  for (int i = 0; i < 25; i++) {
    if (!previous.empty() && random() % 7 == 0) {
      lines += previous;
      continue;
    }
    int order = 1 + static_cast<int>(random() % 30);
    int minute = send * 20 + static_cast<int>(random() % 90);
    char line[256];
    std::snprintf(line, sizeof line,
                  "{\"order_id\":%d,\"customer_id\":\"C%02d\",\"status\":\"%s\",\"amount\":%d.%02d,"
                  "\"event_time\":\"2026-10-01T%02d:%02d:%02dZ\"}\n",
                  order, order % 5, statuses[random() % 5], 5 + static_cast<int>(random() % 50),
                  static_cast<int>(random() % 100), 8 + minute / 60, minute % 60, static_cast<int>(random() % 60));
    previous = line;
    lines += previous;
  }
  return lines;
}

TEST(ShopKeyIndex, MergeOnReadSilverHoldsWhatCopyOnWriteHoldsAndSaysWhatItsIndexHolds) {
  for (unsigned seed : {1u, 2u, 3u}) {
    PipelineFixture f(two_silvers(), {{"orders", 3}});
    std::mt19937 random(seed);
    for (int round = 0; round < 3; round++) {
      // Several bronze files, then silver reads them one a batch.
      for (int send = 0; send < 4; send++) {
        f.produce("orders", generated_updates(random, round * 4 + send), "order_id");
        run_ok(f, {"read_orders"});
      }
      run_ok(f);
      std::string columns = "order_id, customer_id, status, amount, event_time, \"partition\", \"offset\", _batch_id";
      EXPECT_EQ(f.query("select count(*) as differ from ((select " + columns + " from orders except all select " + columns +
                        " from orders_copied) union all (select " + columns + " from orders_copied except all select " +
                        columns + " from orders))"),
                "differ\n0\n")
          << "seed " << seed << ", round " << round;
    }
    std::string rows = f.query("select count(*) as n from orders");
    std::string keys = rows.substr(rows.find('\n') + 1);
    keys.pop_back();
    CommandResult status = f.lakestream("status");
    EXPECT_NE(status.out.find("key index " + keys + " keys in memory"), std::string::npos) << status.out;
    CommandResult json = f.lakestream("status", {"--json"});
    EXPECT_NE(json.out.find("\"keys\": " + keys), std::string::npos) << json.out;
    CommandResult check = f.lakestream("check");
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
  }
}

TEST(ShopKeySets, CopyOnWriteSilverWithOverlappingFilesChecksCleanAndSaysItHoldsKeySets) {
  for (unsigned seed : {4u, 5u}) {
    PipelineFixture f(replaced(shop_pipeline(), "order_by = \"event_time\"\n",
                               "order_by = \"event_time\"\nmax_files_per_trigger = 1\n"),
                      {{"orders", 3}});
    std::mt19937 random(seed);
    int next = 1000, minute = 0;
    std::vector<int> far_below;
    auto line = [&](int order, const char* status) {
      minute++;
      char text[256];
      std::snprintf(text, sizeof text,
                    "{\"order_id\":%d,\"customer_id\":\"C%02d\",\"status\":\"%s\",\"amount\":%d.50,"
                    "\"event_time\":\"2026-10-01T%02d:%02d:00Z\"}\n",
                    order, order % 7, status, 5 + order % 40, 8 + minute / 60, minute % 60);
      return std::string(text);
    };
    for (int send = 0; send < 10; send++) {
      std::string lines;
      for (int i = 0; i < 40; i++) lines += line(next++, "placed");
      if (send % 2 == 0) {
        // New orders only, one with an id far below the rest: a file of its own (a batch of new
        // keys is appended), its range spanning nearly every id.
        far_below.push_back(static_cast<int>(random() % 500));
        lines += line(far_below.back(), "placed");
      } else {
        for (int i = 0; i < 4; i++) lines += line(next - 1 - static_cast<int>(random() % 60), "paid");  // recent orders move on
        lines += line(far_below[random() % far_below.size()], "paid");  // and one of those far below
      }
      f.produce("orders", lines, "order_id");
      run_ok(f, {"read_orders"});
    }
    run_ok(f);
    CommandResult status = f.lakestream("status");
    EXPECT_NE(status.out.find("key sets of "), std::string::npos) << "seed " << seed << "\n" << status.out;
    CommandResult check = f.lakestream("check");
    EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
    EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
  }
}

}  // namespace
}  // namespace lakestream::testing
