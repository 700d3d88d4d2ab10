// deletes_retention: `<table>_deleted` forgets a delete once a batch's newest change is more than
// the retention newer than it (by order_by) and does not change its key; an older change of the
// key read after that brings the row back, and check notes it rather than calling it a problem.
// The model (RetentionModel in support/change_log.h) is the tests' own.
#include <random>

#include "check/clicks_pipeline.h"
#include "check/change_log_runs.h"
#include "support/change_log.h"

namespace lakestream::testing {
namespace {

std::string pipeline_with_retention(const std::string& retention) {
  return change_log_pipeline() + "deletes_retention = " + retention + "\n";
}

TEST(DeletesRetention, AForgottenDeleteLetsALaterOlderChangeBringTheRowBack) {
  PipelineFixture f(pipeline_with_retention("100"), {{"customers", 1}});
  send_changes_and_run(f, {{'c', 1, "Ada", 10, 10}, {'d', 1, "", 0, 20}});
  send_changes_and_run(f, {{'c', 2, "Grace", 20, 50}});
  EXPECT_EQ(f.query("select id from customers_deleted"), "id\n1\n");  // 20 is not older than 50 - 100
  // A batch that changes customer 1 keeps its delete, whatever its age: the older update is
  // left out as before.
  send_changes_and_run(f, {{'u', 1, "Ada L", 11, 15}, {'c', 3, "Alan", 30, 200}});
  EXPECT_EQ(f.query("select id from customers_deleted"), "id\n1\n");
  EXPECT_EQ(silver_customers(f), "id,name,cents\n2,Grace,2000\n3,Alan,3000\n");
  // 20 is older than 300 - 100: forgotten, in the same commit as the batch's deletes.
  send_changes_and_run(f, {{'c', 4, "Edsger", 40, 300}});
  EXPECT_EQ(f.query("select count(*) as n from customers_deleted"), "n\n0\n");
  send_changes_and_run(f, {{'u', 1, "Ada M", 12, 16}});
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,Ada M,1200\n2,Grace,2000\n3,Alan,3000\n4,Edsger,4000\n");
  expect_check(f,
               "ok      bronze_customers has 7 events, each offset once\n"
               "ok      customers has the newest state of all 3 customers\n"
               "note    1 customer back in customers after its delete was forgotten (deletes_retention = 100): an older "
               "change of each came after\n");
}

TEST(DeletesRetention, ARowBackWhoseDeleteIsNotPastRetentionIsAProblem) {
  // Brought back under a retention of 100; checked under 1000, which the delete (20, against the
  // newest change 300) is not past: the stream could not have forgotten it, so check excuses nothing.
  PipelineFixture f(pipeline_with_retention("100"), {{"customers", 1}});
  send_changes_and_run(f, {{'c', 1, "Ada", 10, 10}, {'d', 1, "", 0, 20}});
  send_changes_and_run(f, {{'c', 2, "Grace", 20, 300}});
  send_changes_and_run(f, {{'u', 1, "Ada M", 12, 16}});
  EXPECT_EQ(silver_customers(f), "id,name,cents\n1,Ada M,1200\n2,Grace,2000\n");
  f.write_pipeline(pipeline_with_retention("1000"));
  expect_check(f,
               "ok      bronze_customers has 4 events, each offset once\n"
               "PROBLEM customers is not the newest state of each customer in bronze: 0 wrong, 0 missing, 1 extra, of 1 "
               "customer\n",
               1);
}

TEST(DeletesRetention, GeneratedChangeLogsMatchTheModelWhateverTheBatching) {
  for (uint32_t seed : {1u, 2u, 3u, 4u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::vector<Change> log = generated_change_log(seed, 200, 15);
    std::vector<Change> sent = delivered(log, 8, seed);
    std::mt19937 random(seed);
    auto pick = [&](int n) { return static_cast<int>(random() % static_cast<uint32_t>(n)); };
    RetentionModel model;
    model.retention = 100 + pick(400);  // lsn steps of 10: the last 10 to 50 changes
    PipelineFixture f(pipeline_with_retention(std::to_string(model.retention)), {{"customers", 3}});
    size_t at = 0;
    while (at < sent.size()) {
      size_t n = std::min(sent.size() - at, static_cast<size_t>(1 + pick(50)));
      std::vector<Change> chunk(sent.begin() + static_cast<std::ptrdiff_t>(at), sent.begin() + static_cast<std::ptrdiff_t>(at + n));
      send_changes_and_run(f, chunk);
      model.batch(chunk);
      at += n;
    }
    EXPECT_EQ(silver_customers(f), model.silver_csv());
    EXPECT_EQ(f.query("select id from customers_deleted order by id"), model.deleted_ids());
    CommandResult check = f.lakestream("check");
    EXPECT_EQ(check.exit_code, 0) << check.out;
    EXPECT_EQ(check.out.find("PROBLEM"), std::string::npos) << check.out;
  }
}

TEST(DeletesRetention, ADurationNeedsATimestampOrderByAndSaysSo) {
  PipelineFixture f(pipeline_with_retention("\"7 days\""), {{"customers", 1}});
  f.produce("customers", change_event_json({'c', 1, "Ada", 10, 10}) + "\n");
  CommandResult run = f.lakestream("run");
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("lakestream.toml:24: streams.customers.deletes_retention: '7 days' is a duration, but order_by "
                         "_source_lsn is long; write a number in _source_lsn's units"),
            std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace lakestream::testing
