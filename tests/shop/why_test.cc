// `lakestream why` on the shop scenario: each record's trail through bronze, silver and the hourly
// sales, against what the scenario says of it (tests/data/shop/README.md). Positions and versions
// come from bronze itself (a query), not from why.
#include <set>

#include <nlohmann/json.hpp>

#include "shop/shop_scenario.h"

namespace lakestream::testing {
namespace {

struct Copy {
  std::string partition, offset, batch;
};

// The bronze copies of an order's events with `status`, in the order Kafka holds them.
std::vector<Copy> copies_of(PipelineFixture& f, int order_id, const std::string& status) {
  std::string csv = f.query("select \"partition\", \"offset\", _batch_id from bronze_orders where order_id = " +
                            std::to_string(order_id) + " and status = '" + status + "' order by _batch_id, \"partition\", \"offset\"");
  std::vector<Copy> copies;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // the header
  while (std::getline(lines, line)) {
    auto a = line.find(','), b = line.find(',', a + 1);
    copies.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
  }
  return copies;
}

std::vector<nlohmann::json> trails(PipelineFixture& f, const std::vector<std::string>& args) {
  std::vector<std::string> all{"-f", "json"};
  all.insert(all.end(), args.begin(), args.end());
  CommandResult r = f.lakestream("why", all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<nlohmann::json> out;
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string step(const nlohmann::json& trail, const std::string& table) {
  for (const auto& s : trail["steps"])
    if (s["table"] == table) return s["verdict"].get<std::string>() + ": " + s["why"].get<std::string>();
  return "(no step for " + table + ")";
}

std::string at(const Copy& c) { return "partition " + c.partition + " offset " + c.offset; }

class WhyOnTheShop : public ::testing::Test {
 protected:
  void SetUp() override {
    play_shop(f, [&] {
      CommandResult r = f.lakestream("run");
      ASSERT_EQ(r.exit_code, 0) << r.err;
    });
  }
  PipelineFixture f{shop_pipeline(), {{"orders", 3}}};
};

TEST_F(WhyOnTheShop, TheLateOrderIsLateAgainstTheWatermarkItsBatchMet) {
  auto copies = copies_of(f, 1006, "placed");
  ASSERT_EQ(copies.size(), 1u);
  // The text form, whole: Kafka's position, then one line per table.
  CommandResult r = f.lakestream("why", {"order_id=1006"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t sent_at = r.out.find(", sent ") + 7;
  std::string sent = r.out.substr(sent_at, r.out.find('\n') - sent_at);  // Kafka's timestamp: when the test sent it
  EXPECT_EQ(r.out, "orders " + at(copies[0]) + ", key 1006, sent " + sent + "\n" +
                       "  written     bronze_orders: by batch " + copies[0].batch + " of read_orders, at version " + copies[0].batch + "\n" +
                       "  current     orders: it is the row of its order\n"
                       "  late        hourly_sales: its event_time 2026-10-01 09:45:00 was not after the watermark "
                       "2026-10-01 10:10:00 when hourly_sales read its batch " + copies[0].batch + "\n");
  // Its position names the same record.
  auto by_position = trails(f, {copies[0].partition + ":" + copies[0].offset});
  ASSERT_EQ(by_position.size(), 1u);
  EXPECT_EQ(by_position[0]["offset"].get<int64_t>(), std::stoll(copies[0].offset));
  EXPECT_EQ(step(by_position[0], "hourly_sales").substr(0, 6), "late: ");
}

TEST_F(WhyOnTheShop, AnOrderShippedLaterIsSupersededInSilverAndItsShipmentFilteredOutOfTheSales) {
  auto placed = copies_of(f, 1002, "placed"), shipped = copies_of(f, 1002, "shipped");
  ASSERT_EQ(placed.size(), 1u);
  ASSERT_EQ(shipped.size(), 1u);
  auto found = trails(f, {"1002"});  // a bare key: the Kafka key, or silver's key
  ASSERT_EQ(found.size(), 2u);
  for (const auto& trail : found) {
    bool is_placed = std::to_string(trail["offset"].get<int64_t>()) == placed[0].offset &&
                     std::to_string(trail["partition"].get<int>()) == placed[0].partition;
    if (is_placed) {
      EXPECT_EQ(step(trail, "orders"), "superseded: by " + at(shipped[0]) + ": a newer event_time (2026-10-01 10:30:00+00)");
      EXPECT_EQ(step(trail, "hourly_sales").substr(0, 34), "counted: in the hour 2026-10-01 09") << trail.dump();
    } else {
      EXPECT_EQ(step(trail, "orders"), "current: it is the row of its order");
      EXPECT_EQ(step(trail, "hourly_sales"), "filtered: the stream's filter (status = 'placed') is not true for it");
    }
  }
}

// Silver keeps the newest copy of an event (its ties decide later ties); gold counts the first.
TEST_F(WhyOnTheShop, TheResentBatchIsSilversRowAndNotCountedTwice) {
  auto copies = copies_of(f, 1005, "placed");
  ASSERT_EQ(copies.size(), 2u);  // batch 3 was sent twice
  auto found = trails(f, {"order_id=1005", "status=placed"});
  ASSERT_EQ(found.size(), 2u);
  for (const auto& trail : found) {
    bool first = std::to_string(trail["offset"].get<int64_t>()) == copies[0].offset &&
                 std::to_string(trail["partition"].get<int>()) == copies[0].partition;
    if (first) {
      EXPECT_EQ(step(trail, "orders"), "superseded: by " + at(copies[1]) +
                                           ": an identical copy of it at a later partition and offset (the newest copy is the row)");
      EXPECT_EQ(step(trail, "hourly_sales").substr(0, 31), "counted: in the hour 2026-10-01") << trail.dump();
    } else {
      EXPECT_EQ(step(trail, "orders"), "current: it is the row of its order");
      EXPECT_EQ(step(trail, "hourly_sales"), "duplicate: a copy of " + at(copies[0]) +
                                                 " (the same dedup keys, within the watermark), counted in its place");
    }
  }
}

// An event as a producer sent it: numbers and times in JSON's forms compare as the columns' types
// (22 finds the decimal 22.00; the ISO time the timestamp), a null finds only NULL.
TEST_F(WhyOnTheShop, AnEventGivenAsJsonFindsItsRecord) {
  auto copies = copies_of(f, 1006, "placed");
  ASSERT_EQ(copies.size(), 1u);
  auto found = trails(f, {"--event", "{\"order_id\": 1006, \"amount\": 22, \"event_time\": \"2026-10-01T09:45:00Z\"}"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(std::to_string(found[0]["offset"].get<int64_t>()), copies[0].offset);
  EXPECT_EQ(trails(f, {"amount=22.0", "order_id=1006"}).size(), 1u);
  CommandResult null_customer = f.lakestream("why", {"--event", "{\"order_id\": 1006, \"customer_id\": null}"});
  EXPECT_EQ(null_customer.exit_code, 1) << null_customer.out << null_customer.err;
  CommandResult not_object = f.lakestream("why", {"--event", "[1006]"});
  EXPECT_NE(not_object.exit_code, 0);
  EXPECT_NE(not_object.err.find("is not a JSON object with fields"), std::string::npos) << not_object.err;
}

TEST_F(WhyOnTheShop, NoMatchOrABadRequestSaysSo) {
  CommandResult none = f.lakestream("why", {"order_id=4242"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.out, "no record of bronze or its quarantine matches\n");
  CommandResult column = f.lakestream("why", {"colour=red"});
  EXPECT_NE(column.exit_code, 0);
  EXPECT_NE(column.err.find("no bronze table has the column colour"), std::string::npos) << column.err;
  CommandResult nothing = f.lakestream("why", {});
  EXPECT_NE(nothing.exit_code, 0);
  EXPECT_NE(nothing.err.find("record"), std::string::npos) << nothing.err;
  CommandResult two_positions = f.lakestream("why", {"1:2", "order_id=1"});
  EXPECT_NE(two_positions.exit_code, 0);
  EXPECT_NE(two_positions.err.find("names one record"), std::string::npos) << two_positions.err;
}

// The placed orders of the hour 09:00 (1001, 1002, 1003 on time; 1006 late), as bronze holds them.
std::vector<Copy> placed_at_nine(PipelineFixture& f) {
  std::vector<Copy> all;
  for (int id : {1001, 1002, 1003, 1006})
    for (const auto& c : copies_of(f, id, "placed")) all.push_back(c);
  return all;
}

std::string position_of(const nlohmann::json& trail) {
  return std::to_string(trail["partition"].get<int>()) + ":" + std::to_string(trail["offset"].get<int64_t>());
}

// The other side: the records of one window, as check names it; the one it did not count first.
TEST_F(WhyOnTheShop, TheHourAtNineListsItsRecordsTheLateOneFirst) {
  auto late = copies_of(f, 1006, "placed");
  ASSERT_EQ(late.size(), 1u);
  auto found = trails(f, {"--window", "09:00"});
  ASSERT_EQ(found.size(), 5u);  // 4 records and the summary
  EXPECT_EQ(position_of(found[0]), late[0].partition + ":" + late[0].offset);
  EXPECT_EQ(step(found[0], "hourly_sales").substr(0, 6), "late: ");
  std::set<std::string> listed, expected;
  for (size_t i = 0; i < 4; i++) {
    listed.insert(position_of(found[i]));
    ASSERT_EQ(found[i]["steps"].size(), 1u) << "one step: the window's";
    if (i > 0) {
      EXPECT_EQ(step(found[i], "hourly_sales"), "counted: in the hour 2026-10-01 09:00, written at version 0");
    }
  }
  for (const auto& c : placed_at_nine(f)) expected.insert(c.partition + ":" + c.offset);
  EXPECT_EQ(listed, expected);
  EXPECT_EQ(found[4], nlohmann::json::parse(R"({"window": "hourly_sales, the hour 2026-10-01 09:00", "verdicts": {"late": 1, "counted": 3}})"));
  // The same window by its date and time, ISO's form, or with the table's name.
  for (const char* name : {"2026-10-01 09:00", "hourly_sales 2026-10-01T09:00:00Z", "hourly_sales 09:00"}) {
    CommandResult r = f.lakestream("why", {"--window", name});
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "hourly_sales, the hour 2026-10-01 09:00: 4 records, 1 late, 3 counted") << name;
  }
  // The hour 10:00 also holds an event the filter left out: 1002 shipped at 10:30.
  auto ten = trails(f, {"--window", "10:00"});
  auto shipped = copies_of(f, 1002, "shipped");
  ASSERT_EQ(shipped.size(), 1u);
  ASSERT_GE(ten.size(), 2u);
  EXPECT_EQ(position_of(ten[0]), shipped[0].partition + ":" + shipped[0].offset);
  EXPECT_EQ(step(ten[0], "hourly_sales"), "filtered: the stream's filter (status = 'placed') is not true for it");
  // The resent order is a duplicate in the hour 11:00, named by the copy counted in its place.
  auto eleven = trails(f, {"--window", "11:00"});
  auto resent = copies_of(f, 1005, "placed");
  ASSERT_EQ(resent.size(), 2u);
  ASSERT_EQ(eleven.size(), 3u);
  EXPECT_EQ(step(eleven[0], "hourly_sales"), "duplicate: a copy of " + at(resent[0]) +
                                                 " (the same dedup keys, within the watermark), counted in its place");
}

TEST_F(WhyOnTheShop, AWindowThatIsNotThereOrIsNotNamedRightSaysSo) {
  CommandResult none = f.lakestream("why", {"--window", "08:00"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.out, "hourly_sales: no hour starting at 08:00 holds a record of bronze_orders\n");
  CommandResult no_time = f.lakestream("why", {"--window", "nine"});
  EXPECT_NE(no_time.exit_code, 0);
  EXPECT_NE(no_time.err.find("give the window's start as check names it"), std::string::npos) << no_time.err;
  CommandResult groups = f.lakestream("why", {"--window", "09:00 EU"});
  EXPECT_NE(groups.err.find("hourly_sales has no group columns"), std::string::npos) << groups.err;
  CommandResult both = f.lakestream("why", {"--window", "09:00", "1006"});
  EXPECT_NE(both.err.find("give it alone"), std::string::npos) << both.err;
}

// After the nightly recount the late order is in its hour after all, and why says who put it there.
TEST_F(WhyOnTheShop, AfterTheRecountTheLateOrderIsInItsHour) {
  ASSERT_EQ(f.lakestream("recount").exit_code, 0);
  auto found = trails(f, {"1006"});
  ASSERT_EQ(found.size(), 1u);
  std::string said = step(found[0], "hourly_sales");
  EXPECT_EQ(said.substr(0, said.find(", written at")),
            "recounted: late for hourly_sales, but the hour 2026-10-01 09:00 as written counts it: its values are the recount "
            "of all its events (lakestream recount)");
  auto hour = trails(f, {"--window", "09:00"});
  ASSERT_EQ(hour.size(), 5u);
  EXPECT_EQ(hour[4]["verdicts"], nlohmann::json::parse(R"({"recounted": 1, "counted": 3})"));
}

// A replay with a longer watermark counts what the stream dropped: one more table on the trail.
TEST_F(WhyOnTheShop, AReplayWithALongerWatermarkCountsTheLateOrder) {
  CommandResult replay = f.lakestream("replay", {"hourly_sales", "--into", "sales_2h", "--watermark", "2 hours"});
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  auto found = trails(f, {"1006"});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(step(found[0], "hourly_sales").substr(0, 6), "late: ");
  EXPECT_EQ(step(found[0], "sales_2h"), "counted: in the hour 2026-10-01 09:00, written at version 0");
  CommandResult which = f.lakestream("why", {"--window", "09:00"});
  EXPECT_NE(which.err.find("name the window table first, one of hourly_sales, sales_2h"), std::string::npos) << which.err;
  EXPECT_EQ(trails(f, {"--window", "sales_2h 09:00"}).back()["verdicts"], nlohmann::json::parse(R"({"counted": 4})"));
}

// check --examples points at the late hour's record, and the command it prints lists it.
TEST_F(WhyOnTheShop, CheckNamesTheLateRecordAndTheCommandThatOpensIt) {
  auto late = copies_of(f, 1006, "placed");
  ASSERT_EQ(late.size(), 1u);
  CommandResult check = f.lakestream("check", {"--examples"});
  ASSERT_EQ(check.exit_code, 0) << check.err;
  // It runs in the pipeline file's folder, so the command needs no -p.
  std::string command = "lakestream why --window 'hourly_sales 2026-10-01 09:00'";
  EXPECT_NE(check.out.find("1 arrived after the hour was written\n        e.g. record " + late[0].partition + ":" + late[0].offset +
                           "; " + command + " lists them all\n"),
            std::string::npos)
      << check.out;
  EXPECT_EQ(f.lakestream("check").out, expected_check("expected-check.txt")) << "without --examples, as the scenario says";
  // The command as printed (its quotes as a shell reads them) lists the late record first.
  auto listed = trails(f, {"--window", "hourly_sales 2026-10-01 09:00"});
  ASSERT_FALSE(listed.empty());
  EXPECT_EQ(position_of(listed[0]), late[0].partition + ":" + late[0].offset);
  // The dashboard's copy of the result has them too.
  auto saved = nlohmann::json::parse(read_text(f.dir() + "/checkpoints/check-latest.json"));
  bool found = false;
  for (const auto& line : saved["lines"])
    if (line["verdict"] == "late") {
      found = true;
      EXPECT_EQ(line["examples"], nlohmann::json::array({late[0].partition + ":" + late[0].offset}));
      EXPECT_EQ(line["window"], "hourly_sales 2026-10-01 09:00");
      EXPECT_EQ(line["why"], command);
    }
  EXPECT_TRUE(found) << saved.dump();
}

}  // namespace
}  // namespace lakestream::testing
