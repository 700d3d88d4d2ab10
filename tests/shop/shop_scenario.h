// The shop scenario of tests/data/shop: its pipeline (examples/shop), its batches of
// events, and a driver that plays "for batch in 1 2 3 3 4 5: send it, run the streams".
#pragma once

#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "source/json_lines.h"
#include "support/pipeline_fixture.h"

namespace lakestream::testing {

inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string expected_check(const std::string& name) {
  return read_text(test_data_dir() + "/shop/" + name);
}

// The example pipeline pointed at the test's broker; without the dedup line when asked.
inline std::string shop_pipeline(bool dedup = true) {
  std::string toml = read_text(source_dir() + "/examples/shop/lakestream.toml");
  auto replace = [&](const std::string& from, const std::string& to) {
    auto at = toml.find(from);
    if (at != std::string::npos) toml.replace(at, from.size(), to);
  };
  replace("bootstrap = \"embedded\"", "bootstrap = \"@BOOTSTRAP@\"");
  if (!dedup) replace("dedup = [\"order_id\", \"status\"]", "");
  return toml;
}

// `toml` (a pipeline file whose [lake] section is followed by another section, as the shop
// example's is) with that section replaced by `lake`.
// `toml` with its first `from` replaced by `to` (a failure when there is none).
inline std::string replaced(std::string toml, const std::string& from, const std::string& to) {
  auto at = toml.find(from);
  EXPECT_NE(at, std::string::npos) << from << " is not in the pipeline";
  if (at != std::string::npos) toml.replace(at, from.size(), to);
  return toml;
}

inline std::string with_lake(std::string toml, const std::string& lake) {
  size_t start = toml.find("[lake]\n");
  size_t end = toml.find("\n[", start + 1);
  toml.replace(start, end + 1 - start, lake + "\n");
  return toml;
}

// The scenario's events as JSON lines per batch, without the `batch` field.
inline std::map<std::string, std::string> shop_batches() {
  return group_json_lines_by(read_text(test_data_dir() + "/shop/batches.jsonl"), "batch");
}

// One `lakestream run` (of `streams` only, when given) that must succeed.
inline void run_ok(PipelineFixture& f, const std::vector<std::string>& streams = {}) {
  CommandResult r = f.lakestream("run", streams);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
}

// Sends 1 2 3 3 4 5, calling `run_streams` after each send.
inline void play_shop(PipelineFixture& f, const std::function<void()>& run_streams) {
  auto batches = shop_batches();
  for (const std::string batch : {"1", "2", "3", "3", "4", "5"}) {
    f.produce("orders", batches.at(batch), "order_id");
    run_streams();
  }
}

// After the scenario: silver holds the newest event of each of the 9 orders (1002 was shipped after
// it was placed); gold the hours the watermark closed, each written once (1006 came after 09:00
// was written).
inline void expect_shop_silver_and_gold(PipelineFixture& f) {
  EXPECT_EQ(f.query("select order_id, customer_id, status, amount, strftime(event_time, '%H:%M') as t from orders order by order_id"),
            "order_id,customer_id,status,amount,t\n"
            "1001,C01,placed,25.00,09:05\n"
            "1002,C02,shipped,18.50,10:30\n"
            "1003,C01,placed,25.00,09:50\n"
            "1004,C03,placed,30.00,10:15\n"
            "1005,C04,placed,18.25,11:10\n"
            "1006,C05,placed,22.00,09:45\n"
            "1007,C02,placed,25.00,10:40\n"
            "1008,C01,placed,40.00,12:05\n"
            "1009,C03,placed,30.00,13:20\n");
  EXPECT_EQ(f.query("select strftime(hour, '%H:%M') as h, orders, revenue from hourly_sales order by hour"),
            "h,orders,revenue\n09:00,3,68.50\n10:00,2,55.00\n11:00,1,18.25\n");
}

// After the scenario, `recount` corrects the one hour written before its late order arrived, and
// check then prints the seed's lines after a recount, all ok.
inline void expect_recount_corrects_nine_oclock(PipelineFixture& f) {
  CommandResult recount = f.lakestream("recount");
  ASSERT_EQ(recount.exit_code, 0) << recount.err;
  EXPECT_EQ(recount.out, "recount: hourly_sales 2026-10-01 09:00: 3 orders, 68.50 -> 4 orders, 90.50\n");
  CommandResult check = f.lakestream("check");
  EXPECT_EQ(check.out, expected_check("expected-check-after-recount.txt")) << check.err;
  EXPECT_EQ(check.exit_code, 0);
}

}  // namespace lakestream::testing
