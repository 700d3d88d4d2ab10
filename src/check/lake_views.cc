#include "check/lake_views.h"

#include <algorithm>

#include "table/parquet_file.h"
#include "util/error.h"

namespace lakestream {

namespace {

// The view of one table, when it exists on disk.
void add_lake_view(sql::Connection& con, const Pipeline& pipeline, const std::string& table,
                   const std::map<std::string, TableSlice>& slices, std::map<std::string, delta::Snapshot>& snapshots) {
  delta::Snapshot snapshot = delta::load_snapshot(pipeline.table_path(table));
  if (!snapshot.exists()) return;
  std::string view = delta::scan_sql(snapshot);
  auto slice = slices.find(table);
  if (slice != slices.end()) {
    snapshot = delta::prune_files(con, snapshot, slice->second.column, slice->second.range);
    view = "SELECT * FROM (" + delta::scan_sql(snapshot) + ") WHERE " +
           slice->second.range.contains_sql(sql::quote_ident(slice->second.column));
  }
  con.exec("CREATE OR REPLACE TEMP VIEW " + sql::quote_ident(table) + " AS " + view);
  snapshots.emplace(table, std::move(snapshot));
}

}  // namespace

std::map<std::string, delta::Snapshot> create_lake_views(sql::Connection& con, const Pipeline& pipeline,
                                                         const std::map<std::string, TableSlice>& slices,
                                                         std::map<std::string, std::string>* unreadable) {
  std::map<std::string, delta::Snapshot> snapshots;
  for (const auto& table : pipeline.table_names()) {
    try {
      add_lake_view(con, pipeline, table, slices, snapshots);
    } catch (const std::exception& e) {
      if (!unreadable) throw;
      (*unreadable)[table] = e.what();
    }
  }
  return snapshots;
}

delta::TimeRange parse_time_range(const std::string& since, const std::string& until) {
  sql::Database db;
  sql::Connection con(db);
  auto instant = [&](const std::string& option, const std::string& text) -> int64_t {
    try {
      return std::stoll(*con.scalar("SELECT epoch_us(CAST(" + sql::quote_literal(text) + " AS TIMESTAMPTZ))"));
    } catch (const std::exception&) {
      throw Error(option + " '" + text + "' is not a time; write e.g. 2026-03-02, \"2026-03-02 09:00\" or "
                  "2026-03-02T09:00:00Z (UTC unless an offset is given)");
    }
  };
  delta::TimeRange range;
  if (!since.empty()) range.since_us = instant("--since", since);
  if (!until.empty()) range.until_us = instant("--until", until);
  if (range.since_us >= range.until_us)
    throw Error("--since " + since + " is not before --until " + until + "; the range would be empty");
  return range;
}

std::map<std::string, TableSlice> window_slices(const Pipeline& pipeline, const delta::TimeRange& range,
                                                const std::vector<std::string>& streams) {
  std::map<std::string, TableSlice> slices;
  if (range.is_everything()) return slices;
  for (const auto& stream : pipeline.streams) {
    if (stream.kind != StreamKind::Window) continue;
    if (!streams.empty() && std::find(streams.begin(), streams.end(), stream.name) == streams.end()) continue;
    auto floor_to_window = [&](int64_t us) { return us - ((us % stream.window_us) + stream.window_us) % stream.window_us; };
    delta::TimeRange whole = range;
    if (range.since_us != delta::TimeRange{}.since_us) whole.since_us = floor_to_window(range.since_us);
    if (range.until_us != delta::TimeRange{}.until_us && floor_to_window(range.until_us) != range.until_us)
      whole.until_us = floor_to_window(range.until_us) + stream.window_us;
    slices[stream.table] = {stream.window_column, whole};
    slices.emplace(stream.from, TableSlice{stream.event_time, whole});
  }
  return slices;
}

}  // namespace lakestream
