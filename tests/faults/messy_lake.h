// The shop pipeline (ingest + latest + window with dedup) fed a messy stream send by send, and
// what a fault test compares: every table's content and check's lines against an uninterrupted run.
#pragma once

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "faults/messy_stream.h"
#include "shop/shop_scenario.h"
#include "support/crash_points.h"
#include "support/test_settings.h"

namespace lakestream::testing {

// The streams of the shop pipeline, one per kind.
inline const std::vector<std::string>& stream_of_each_kind() {
  static const std::vector<std::string> streams{"read_orders", "latest_orders", "hourly_sales"};
  return streams;
}

// The shop pipeline, ingest split into batches so that a crash can land between two of them.
inline std::string messy_pipeline() {
  std::string toml = shop_pipeline();
  const std::string topic_line = "topic = \"orders\"\n";
  toml.replace(toml.find(topic_line), topic_line.size(), topic_line + "max_offsets_per_trigger = 1500\n");
  return toml;
}

// Every table of the shop pipeline's lake, rows in a fixed order, without the columns that differ
// between two lakes fed the same events: when they were sent (kafka_timestamp) and written
// (_ingested_at).
// The shop's plain scenario quarantines nothing, so it has no quarantine table: `with_quarantine`.
inline std::string lake_contents(PipelineFixture& f, bool with_quarantine = true) {
  std::string all;
  for (const char* table : {"bronze_orders", "bronze_orders_quarantine", "orders", "hourly_sales"}) {
    if (!with_quarantine && std::string(table).ends_with("_quarantine")) continue;
    std::string columns = f.query("select string_agg(column_name, ',') from (describe " + std::string(table) + ")");
    std::string except;
    for (const char* clock_column : {"kafka_timestamp", "_ingested_at"})
      if (columns.find(clock_column) != std::string::npos) except += (except.empty() ? "" : ", ") + std::string(clock_column);
    all += "== " + std::string(table) + "\n" +
           f.query("select *" + (except.empty() ? "" : " exclude (" + except + ")") + " from " + table + " order by all");
  }
  return all;
}

class MessyLake {
 public:
  // `env` goes to every command (a store's credentials, say).
  explicit MessyLake(const std::string& pipeline = messy_pipeline(), std::vector<std::string> env = {})
      : f_(pipeline, {{"orders", 3}}), env_(std::move(env)) {}

  // Sends each part of `stream` and calls `run_streams(send_index)` after it.
  void play(const MessyStream& stream, const std::function<void(int)>& run_streams) {
    for (size_t i = 0; i < stream.sends.size(); i++) {
      f_.produce("orders", stream.sends[i], "order_id");
      run_streams(static_cast<int>(i));
    }
  }

  // `lakestream run [streams]`; fails the test unless it exits 0.
  void run_ok(const std::vector<std::string>& streams = {}) {
    CommandResult r = f_.lakestream("run", streams, env_);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  }

  // `lakestream run [streams]` with LAKESTREAM_FAULT=`fault`; true when the fault killed it.
  bool run_with_fault(const std::string& fault, const std::vector<std::string>& streams = {}) {
    std::vector<std::string> env = env_;
    env.push_back("LAKESTREAM_FAULT=" + fault);
    CommandResult r = f_.lakestream("run", streams, env);
    EXPECT_TRUE(r.exit_code == 0 || r.signal == SIGKILL) << fault << ": " << r.out << r.err;
    return r.signal == SIGKILL;
  }

  // `lakestream run --continuous --interval 0s`, in the background.
  std::unique_ptr<BackgroundProcess> start_continuous() {
    return std::make_unique<BackgroundProcess>(
        std::vector<std::string>{"run", "-p", f_.pipeline_file(), "--continuous", "--interval", "0s"}, f_.dir(), env_);
  }

  // Lets a continuous run read the last events for `settle_ms`, stops it with SIGTERM (it must
  // exit 0), then a plain run reads whatever is left.
  void stop_continuous(BackgroundProcess& run, int settle_ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(settle_ms));
    run.send_signal(SIGTERM);
    CommandResult last = run.wait(60000);
    EXPECT_EQ(last.exit_code, 0) << last.out << last.err;
    run_ok();
  }

  std::string contents() { return lake_contents(f_); }

  CommandResult check() { return f_.lakestream("check", {}, env_); }
  PipelineFixture& fixture() { return f_; }

 private:
  PipelineFixture f_;
  std::vector<std::string> env_;
};

// The rows of the tables that do not depend on where batches end (all but the window's), without
// the columns that do (the batch id) or that differ between two lakes fed the same events (times).
inline std::string batching_free_contents(PipelineFixture& f) {
  std::string all;
  for (const char* table : {"bronze_orders", "bronze_orders_quarantine", "orders"}) {
    std::string columns = f.query("select string_agg(column_name, ',') from (describe " + std::string(table) + ")");
    std::string except;
    for (const char* column : {"kafka_timestamp", "_ingested_at", "_batch_id"})
      if (columns.find(column) != std::string::npos) except += (except.empty() ? "" : ", ") + std::string(column);
    all += "== " + std::string(table) + "\n" +
           f.query("select *" + (except.empty() ? "" : " exclude (" + except + ")") + " from " + table + " order by all");
  }
  return all;
}

// The first line where two table dumps differ, for a readable failure.
inline std::string first_difference(const std::string& expected, const std::string& actual) {
  size_t at = 0;
  while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) at++;
  if (at == expected.size() && at == actual.size()) return "";
  size_t line_start = expected.rfind('\n', at == 0 ? 0 : at - 1);
  line_start = line_start == std::string::npos ? 0 : line_start + 1;
  auto line_at = [&](const std::string& s) { return s.substr(line_start, s.find('\n', line_start) - line_start); };
  size_t table = expected.rfind("== ", at);
  std::string where = table == std::string::npos ? "" : expected.substr(table, expected.find('\n', table) - table);
  return where + "\n  expected: " + line_at(expected) + "\n  actual:   " + line_at(actual);
}

// What an uninterrupted run left: every table's rows and check's lines.
struct Reference {
  std::string contents;
  std::string check;
};

// Every table and check's lines after `stream` was played into a lake with local checkpoints,
// the streams run after each send.
inline Reference uninterrupted(const MessyStream& stream) {
  MessyLake lake;
  lake.play(stream, [&](int) { lake.run_ok(); });
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, 0) << check.out << check.err;
  return {lake.contents(), check.out};
}

// Runs the streams after a send with a crash at `point` (its `hit`-th pass) in stream `target`:
// the streams before it run clean, the target runs with the fault, then everything runs again.
// `hit` 2 lands in ingest's second batch; the other kinds pass most points once per run.
// `after_crash` runs between the faulted run and the rerun (say, to lose the working copy).
inline bool crash_in(MessyLake& lake, const std::string& point, const std::string& target, int hit = 0,
                     const std::function<void()>& after_crash = {}) {
  if (hit == 0) hit = target == "read_orders" ? 2 : 1;
  const auto& streams = stream_of_each_kind();
  std::vector<std::string> before(streams.begin(), std::find(streams.begin(), streams.end(), target));
  if (!before.empty()) lake.run_ok(before);
  bool crashed = lake.run_with_fault(point + ":" + std::to_string(hit), {target});
  if (after_crash) after_crash();
  lake.run_ok();
  return crashed;
}

// The streams each crash point kills when every point is tried in every stream kind: every kind
// that passes it.
inline std::map<std::string, std::set<std::string>> streams_each_point_kills() {
  const std::set<std::string> all(stream_of_each_kind().begin(), stream_of_each_kind().end());
  return {{"after_plan", all},
          {"mid_checkpoint_file", all},
          {"after_kafka_read", {"read_orders"}},
          {"after_data_files", all},
          {"mid_commit_file", all},
          {"after_quarantine_commit", {"read_orders"}},
          {"before_delta_commit", all},
          {"after_delta_commit", all},
          {"after_state_commit", {"hourly_sales"}},
          {"after_sink_commit", {"hourly_sales"}}};
}

// The lake holds what the reference does, and check says the same lines.
inline void expect_same_as(const Reference& reference, MessyLake& lake) {
  std::string contents = lake.contents();
  EXPECT_TRUE(contents == reference.contents) << first_difference(reference.contents, contents);
  CommandResult check = lake.check();
  EXPECT_EQ(check.exit_code, 0) << check.err;
  EXPECT_EQ(check.out, reference.check);
}

}  // namespace lakestream::testing
