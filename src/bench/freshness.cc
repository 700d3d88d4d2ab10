#include "bench/freshness.h"

#include <algorithm>
#include <map>
#include <vector>

#include "sql/duckdb.h"
#include "table/delta_table.h"
#include "util/files.h"

namespace lakestream::bench {
namespace {

int64_t commit_ms(const delta::CommitEntry& commit) { return commit.commit_info.value("timestamp", int64_t{0}); }

Latency summarize(std::vector<double> ms) {
  Latency out;
  out.events = static_cast<int64_t>(ms.size());
  if (ms.empty()) return out;
  std::sort(ms.begin(), ms.end());
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, static_cast<size_t>(q * static_cast<double>(ms.size())))]; };
  out.p50_ms = at(0.5);
  out.p99_ms = at(0.99);
  out.max_ms = ms.back();
  return out;
}

// For each bronze version: when it was committed and its rows' Kafka timestamps (ms).
struct BronzeVersion {
  int64_t committed_ms = 0;
  std::vector<int64_t> kafka_ms;
};

std::map<int64_t, BronzeVersion> bronze_versions(const std::string& bronze_path) {
  std::map<int64_t, BronzeVersion> out;
  int64_t last = delta::latest_version(bronze_path);
  if (last < 0) return out;
  sql::Database db;
  sql::Connection con(db);
  for (const auto& commit : delta::read_commits(bronze_path, delta::oldest_commit(bronze_path), last)) {
    if (commit.adds.empty()) continue;
    BronzeVersion& v = out[commit.version];
    v.committed_ms = commit_ms(commit);
    for (const auto& add : commit.adds) {
      sql::Rows rows = con.query("SELECT epoch_ms(kafka_timestamp) FROM read_parquet(" +
                                 sql::quote_literal(join_path(bronze_path, add.path)) + ")");
      for (const auto& row : rows.rows)
        if (row[0]) v.kafka_ms.push_back(std::stoll(*row[0]));
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
      const auto& info = commit.commit_info;
      if (!info.contains("lakestream") || !info["lakestream"].contains("source")) continue;
      const auto& source = info["lakestream"]["source"];
      if (source.contains("toVersion") && source["toVersion"].is_number_integer())
        read_up_to.emplace_back(source["toVersion"].get<int64_t>(), commit_ms(commit));
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

}  // namespace lakestream::bench
