#include "bench/freshness.h"

#include <algorithm>
#include <climits>
#include <map>
#include <optional>
#include <vector>

#include "sql/duckdb.h"
#include "table/commit_record.h"
#include "table/delta_table.h"
#include "util/files.h"
#include "util/percentile.h"

namespace lakestream::bench {
namespace {

int64_t commit_ms(const delta::CommitEntry& commit) { return commit.commit_info.value("timestamp", int64_t{0}); }

Latency summarize(std::vector<double> ms) {
  Latency out;
  out.events = static_cast<int64_t>(ms.size());
  if (ms.empty()) return out;
  std::sort(ms.begin(), ms.end());
  out.p50_ms = at_quantile(ms, 0.5);
  out.p99_ms = at_quantile(ms, 0.99);
  out.max_ms = ms.back();
  return out;
}

// For each bronze version: when it was committed and its rows' Kafka timestamps (ms), and with an
// event time column, their event times (ms) in the same order.
struct BronzeVersion {
  int64_t committed_ms = 0;
  std::vector<int64_t> kafka_ms;
  std::vector<int64_t> event_ms;
};

std::map<int64_t, BronzeVersion> bronze_versions(const std::string& bronze_path,
                                                 const std::string& event_time_column = "") {
  std::map<int64_t, BronzeVersion> out;
  int64_t last = delta::latest_version(bronze_path);
  if (last < 0) return out;
  sql::Database db;
  sql::Connection con(db);
  for (const auto& commit : delta::read_commits(bronze_path, delta::oldest_commit(bronze_path), last)) {
    // A compaction's files hold rows committed before (dataChange=false): each row counts at the
    // commit that first held it, whose file stays until a vacuum.
    if (std::none_of(commit.adds.begin(), commit.adds.end(), [](const auto& add) { return add.data_change; })) continue;
    BronzeVersion& v = out[commit.version];
    v.committed_ms = commit_ms(commit);
    for (const auto& add : commit.adds) {
      if (!add.data_change) continue;
      std::string event_time =
          event_time_column.empty() ? "NULL" : "epoch_ms(" + sql::quote_ident(event_time_column) + ")";
      sql::Rows rows = con.query("SELECT epoch_ms(kafka_timestamp), " + event_time + " FROM read_parquet(" +
                                 sql::quote_literal(join_path(bronze_path, add.path)) + ")");
      for (const auto& row : rows.rows) {
        if (!row[0]) continue;
        v.kafka_ms.push_back(std::stoll(*row[0]));
        v.event_ms.push_back(row[1] ? std::stoll(*row[1]) : INT64_MIN);
      }
    }
  }
  return out;
}

}  // namespace

Latency bronze_latency(const std::string& bronze_path) {
  std::vector<double> ms;
  for (const auto& [version, v] : bronze_versions(bronze_path))
    for (int64_t kafka : v.kafka_ms) ms.push_back(static_cast<double>(v.committed_ms - kafka));
  return summarize(std::move(ms));
}

Latency downstream_latency(const std::string& bronze_path, const std::string& table_path) {
  // The commits of the downstream table, with the last bronze version each batch read.
  std::vector<std::pair<int64_t, int64_t>> read_up_to;  // (bronze toVersion, committed ms), in commit order
  int64_t last = delta::latest_version(table_path);
  if (last >= 0) {
    for (const auto& commit : delta::read_commits(table_path, delta::oldest_commit(table_path), last)) {
      auto record = commit_record_of(commit.commit_info);
      if (record && record->table) read_up_to.emplace_back(record->table->to_version, commit_ms(commit));
    }
  }
  std::vector<double> ms;
  for (const auto& [version, v] : bronze_versions(bronze_path)) {
    auto first = std::find_if(read_up_to.begin(), read_up_to.end(),
                              [&](const auto& r) { return r.first >= version; });
    if (first == read_up_to.end()) continue;
    for (int64_t kafka : v.kafka_ms) ms.push_back(static_cast<double>(first->second - kafka));
  }
  return summarize(std::move(ms));
}

Latency closed_window_latency(const std::string& bronze_path, const std::string& gold_path, const WindowShape& window) {
  // Bronze in order, with the greatest event time up to each version (it only grows).
  std::vector<std::pair<const BronzeVersion*, int64_t>> max_event_ms;  // (version, max event ms up to it)
  auto versions = bronze_versions(bronze_path, window.event_time_column);
  int64_t greatest = INT64_MIN;
  for (const auto& [number, v] : versions) {
    for (int64_t e : v.event_ms) greatest = std::max(greatest, e);
    max_event_ms.emplace_back(&v, greatest);
  }
  // The Kafka timestamp of the event that closed the window ending at `end_ms`; nullopt when none did.
  auto closed_by = [&](int64_t end_ms) -> std::optional<int64_t> {
    auto first = std::partition_point(max_event_ms.begin(), max_event_ms.end(), [&](const auto& entry) {
      return entry.second == INT64_MIN || entry.second - window.watermark_delay_ms < end_ms;
    });
    if (first == max_event_ms.end()) return std::nullopt;
    const BronzeVersion& v = *first->first;
    std::optional<int64_t> earliest;
    for (size_t i = 0; i < v.event_ms.size(); i++)
      if (v.event_ms[i] != INT64_MIN && v.event_ms[i] - window.watermark_delay_ms >= end_ms)
        earliest = std::min(earliest.value_or(INT64_MAX), v.kafka_ms[i]);
    return earliest;
  };
  std::vector<double> ms;
  int64_t last = delta::latest_version(gold_path);
  if (last < 0) return summarize(std::move(ms));
  sql::Database db;
  sql::Connection con(db);
  for (const auto& commit : delta::read_commits(gold_path, delta::oldest_commit(gold_path), last)) {
    for (const auto& add : commit.adds) {
      // A compaction's merged file holds windows written before (dataChange=false): each counts
      // at the commit that first wrote it.
      if (!add.data_change) continue;
      sql::Rows rows = con.query("SELECT epoch_ms(" + sql::quote_ident(window.window_column) + ") FROM read_parquet(" +
                                 sql::quote_literal(join_path(gold_path, add.path)) + ")");
      for (const auto& row : rows.rows) {
        if (!row[0]) continue;
        if (auto closing = closed_by(std::stoll(*row[0]) + window.window_ms))
          ms.push_back(static_cast<double>(commit_ms(commit) - *closing));
      }
    }
  }
  return summarize(std::move(ms));
}

}  // namespace lakestream::bench
