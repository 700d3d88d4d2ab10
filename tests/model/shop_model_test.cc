// The reference model against a reference of its own: the shop scenario's expected outputs
// (tests/data/shop), worked out by hand from Spark's rules. The shop's fields map onto the model's:
// order_id -> id, customer_id -> k2, status -> g ("placed" -> "a", so that the filter g = 'a'
// keeps placed orders), amount -> d, event_time -> ts.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "model/case_file.h"
#include "model/reference_model.h"
#include "support/test_support.h"

namespace lakestream::model {
namespace {

constexpr int64_t kHour = 3600LL * 1000000;

PipelineSpec shop_pipeline(bool dedup) {
  PipelineSpec p;
  p.require_ts = true;
  p.latest = LatestSpec{{Column::id}};
  WindowSpec w;
  w.name = "hourly_sales";
  w.filter = Filter::g_is_a;
  w.delay_us = kHour;
  w.window_us = kHour;
  if (dedup) w.dedup = {Column::id, Column::g};
  w.aggregates = {{"count", std::nullopt}, {"sum", Column::d}};
  p.windows.push_back(w);
  return p;
}

// The scenario's batches as the model's events, in the order 1 2 3 3 4 5, one partition.
std::vector<std::vector<Record>> shop_runs() {
  std::map<std::string, std::vector<std::string>> batches;
  std::ifstream in(testing::test_data_dir() + "/shop/batches.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    auto j = nlohmann::json::parse(line);
    nlohmann::json e = {{"id", j["order_id"]}, {"k2", j["customer_id"]}, {"g", j["status"] == "placed" ? "a" : j["status"]},
                        {"d", j["amount"]}, {"ts", j["event_time"]}};
    batches[j["batch"]].push_back(e.dump());
  }
  std::vector<std::vector<Record>> runs;
  int64_t offset = 0;
  for (const std::string batch : {"1", "2", "3", "3", "4", "5"}) {
    runs.emplace_back();
    for (const auto& value : batches.at(batch)) runs.back().push_back({event_of(value, 0, true), 0, offset++});
  }
  return runs;
}

std::string hour_of(int64_t us) { return std::to_string(us % (24 * kHour) / kHour) + ":00"; }

// The gold table as "hour: count, sum" lines.
std::vector<std::string> gold_lines(const ReferenceModel& model) {
  std::vector<std::string> lines;
  for (const auto& [key, values] : model.gold(0)) {
    int64_t start = std::stoll(key.substr(1, key.find('|') - 1));
    lines.push_back(hour_of(start) + ": " + values[0].show() + ", " + values[1].show());
  }
  return lines;
}

TEST(ShopModel, GivesTheScenarioExpectedHours) {
  ReferenceModel model(shop_pipeline(true));
  for (const auto& run : shop_runs()) model.run(run);
  // expected-check.txt: 09:00 written with 3 orders (1006 came after the hour was written),
  // 10:00 and 11:00 written, 12:00 and 13:00 waiting.
  EXPECT_EQ(gold_lines(model), (std::vector<std::string>{"9:00: 3, 68.50", "10:00: 2, 55.00", "11:00: 1, 18.25"}));
  EXPECT_EQ(model.check().show(), "2 ok, 1 late, 2 waiting, 0 PROBLEM, 0 tables not written yet");
  EXPECT_EQ(model.silver().size(), 9u);
  EXPECT_EQ(model.bronze().size(), 11u);
  // expected-check-after-recount.txt: 09:00 becomes 4 orders, 90.50, and every written hour is ok.
  model.recount();
  EXPECT_EQ(gold_lines(model), (std::vector<std::string>{"9:00: 4, 90.50", "10:00: 2, 55.00", "11:00: 1, 18.25"}));
  EXPECT_EQ(model.check().show(), "3 ok, 0 late, 2 waiting, 0 PROBLEM, 0 tables not written yet");
}

TEST(ShopModel, WithoutDedupCountsTheResentBatchTwice) {
  ReferenceModel model(shop_pipeline(false));
  for (const auto& run : shop_runs()) model.run(run);
  // expected-check-without-dedup.txt: 11:00 counted 2 orders, 36.50, a PROBLEM.
  EXPECT_EQ(gold_lines(model), (std::vector<std::string>{"9:00: 3, 68.50", "10:00: 2, 55.00", "11:00: 2, 36.50"}));
  EXPECT_EQ(model.check().show(), "1 ok, 1 late, 2 waiting, 1 PROBLEM, 0 tables not written yet");
}

}  // namespace
}  // namespace lakestream::model
