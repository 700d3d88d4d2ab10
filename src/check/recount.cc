#include "check/recount.h"

#include <algorithm>
#include <chrono>

#include "check/check_wording.h"
#include "check/lake_views.h"
#include "check/stream_input.h"
#include "check/window_recount.h"
#include "checkpoint/window_state_store.h"
#include "sql/duckdb.h"
#include "sql/memory_budget.h"
#include "table/commit_record.h"
#include "table/commit_retry.h"
#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/seen_batches.h"
#include "table/table_features.h"
#include "util/error.h"
#include "util/fault.h"

namespace lakestream {

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

// Recounts one table; returns its changes (none: no commit).
std::vector<RecountChange> recount_table(sql::Connection& con, const Pipeline& pipeline, const Stream& stream,
                                         const delta::TimeRange& range) {
  std::string table_path = pipeline.table_path(stream.table);
  // A conflict means the stream committed meanwhile: recount again on the newer version.
  return delta::commit_with_retry("recount " + stream.table + " (its stream keeps committing; try again when it is idle)",
                                  [&]() -> std::vector<RecountChange> {
    std::vector<RecountChange> changes;
    // Sliced by the range: `gold` then holds only the files with windows in it, and only those
    // are removed and rewritten below; the other files stay as they are.
    auto snapshots = create_lake_views(con, pipeline, window_slices(pipeline, range, {stream.name}));
    if (!snapshots.count(stream.from)) return changes;
    auto progress = read_window_progress(pipeline, stream);
    if (!snapshots.count(stream.table)) {
      // The stream ran but wrote nothing: every window it closed had only late events. Those are
      // written here, into the table created as the stream would create it.
      if (!progress || progress->output_columns.empty()) return changes;
      delta::Snapshot created;
      created.table = table_path;
      for (const auto& [name, type] : progress->output_columns)
        created.metadata.schema.push_back({name, delta::delta_type_of_duckdb(type, "a window aggregate"), true});
      created.metadata.configuration = pipeline.table_properties(stream);
      snapshots[stream.table] = created;
    }
    const delta::Snapshot& gold = snapshots.at(stream.table);
    const StreamInput input = stream_input(con, stream, snapshots.at(stream.from));
    const auto& source_columns = input.columns;
    const auto& columns = gold.metadata.schema;

    std::string key = window_key_sql(stream);
    std::vector<std::string> types = aggregate_types(stream, columns);
    // Each event once, late ones included; with dedup, a key counts again once the stream's
    // watermark forgot it, so the watermarks its batches met take part.
    MetWatermarks met;
    int64_t watermark_us = 0;
    if (progress) {
      met = {progress->watermark_history, progress->watermark_us};
      watermark_us = progress->watermark_us;
    }
    create_window_copies(con, stream, source_columns, input.relation, met, "recount_copies");
    create_window_events(con, stream, source_columns, "recount_copies", "true", "recount_events");
    con.exec("CREATE OR REPLACE TEMP TABLE recount_values AS SELECT " + key + ", " + window_aggregates_sql(stream, types) +
             " FROM recount_events GROUP BY " + key);
    // Each written window with its recount; a window the recount has no events for stays as written.
    std::string match = "r.ws = g." + q(stream.window_column);
    for (const auto& g : stream.group_by) match += " AND r." + q(g) + " IS NOT DISTINCT FROM g." + q(g);
    std::string select, differs, before_values, after_values;
    // A window whose values equal the recount (doubles within the tolerance check allows) stays.
    for (const auto& c : columns) {
      auto aggregate = std::find_if(stream.aggregates.begin(), stream.aggregates.end(),
                                    [&](const Aggregate& a) { return a.name == c.name; });
      bool is_aggregate = aggregate != stream.aggregates.end();
      std::string value = is_aggregate ? "CASE WHEN r.ws IS NULL THEN g." + q(c.name) + " ELSE r." + q(c.name) + " END"
                                       : "g." + q(c.name);
      select += (select.empty() ? "" : ", ") + value + " AS " + q(c.name);
      if (is_aggregate) {
        size_t i = static_cast<size_t>(aggregate - stream.aggregates.begin());
        differs += " AND " + same_aggregate_sql(stream, i, types[i], "g", "r");
        before_values += ", g." + q(c.name) + "::VARCHAR";
        after_values += ", r." + q(c.name) + "::VARCHAR";
      }
    }
    differs = "NOT (true" + differs + ")";
    // The window's group follows its start, as in check's lines ("09:00 US purchase"): a change
    // of one group among many must say which.
    auto group_values = [&](const std::string& alias) {
      std::string values;
      for (const auto& g : stream.group_by) values += ", coalesce(" + alias + "." + q(g) + "::VARCHAR, 'NULL')";
      return values;
    };
    size_t groups = stream.group_by.size();
    auto label_of = [&](const std::vector<std::optional<std::string>>& row) {
      std::string label = *row[0];
      for (size_t i = 0; i < groups; i++) label += " " + row[1 + i].value_or("NULL");
      return label;
    };
    std::string joined = "FROM (" + delta::scan_sql(gold) + ") g LEFT JOIN recount_values r ON " + match;
    sql::Rows changed = con.query("SELECT strftime(g." + q(stream.window_column) + ", '%Y-%m-%d %H:%M')" +
                                  group_values("g") + before_values + after_values + " " + joined +
                                  " WHERE r.ws IS NOT NULL AND (" + differs + ") ORDER BY ALL");
    size_t n = stream.aggregates.size();
    for (const auto& row : changed.rows) {
      std::vector<std::optional<std::string>> before, after;
      for (size_t i = 0; i < n; i++) {
        before.push_back(value_text(types[i], row[1 + groups + i]));
        after.push_back(value_text(types[i], row[1 + groups + n + i]));
      }
      changes.push_back({stream.table, label_of(row), values_phrase(stream, before), values_phrase(stream, after)});
    }
    // A closed window the stream never wrote (every event of it came after the watermark passed
    // its end) is written too, as the nightly batch would: gold then equals the batch truth.
    std::string unwritten_select;
    for (const auto& c : columns) {
      bool is_aggregate = std::any_of(stream.aggregates.begin(), stream.aggregates.end(),
                                      [&](const Aggregate& a) { return a.name == c.name; });
      bool is_group = std::find(stream.group_by.begin(), stream.group_by.end(), c.name) != stream.group_by.end();
      std::string value = c.name == stream.window_column ? "r.ws"
                          : c.name == stream.window_end_column
                              ? "r.ws + to_microseconds(" + std::to_string(stream.window_us) + ")"
                          : is_aggregate || is_group ? "r." + q(c.name)
                                                     : "NULL";
      unwritten_select += (unwritten_select.empty() ? "" : ", ") + value + " AS " + q(c.name);
    }
    std::string unwritten = "FROM recount_values r WHERE epoch_us(r.ws) + " + std::to_string(stream.window_us) +
                            " <= " + std::to_string(watermark_us) + " AND " + range.contains_sql("r.ws") +
                            " AND NOT EXISTS (SELECT 1 FROM (" + delta::scan_sql(gold) + ") g WHERE " + match + ")";
    sql::Rows added_windows = con.query("SELECT strftime(r.ws, '%Y-%m-%d %H:%M')" + group_values("r") + after_values +
                                        " " + unwritten + " ORDER BY ALL");
    for (const auto& row : added_windows.rows) {
      std::vector<std::optional<std::string>> after;
      for (size_t i = 0; i < n; i++) after.push_back(value_text(types[i], row[1 + groups + i]));
      changes.push_back({stream.table, label_of(row), "not written", values_phrase(stream, after)});
    }
    if (changes.empty()) return changes;

    int64_t max_batch = con.scalar_int("SELECT coalesce(max(_batch), -1) FROM recount_events");
    delta::Commit commit(gold);
    if (!gold.exists()) commit.set_metadata(gold.metadata);  // a fresh id and time, as a stream's first commit
    for (const auto& f : gold.files) commit.remove(f);
    delta::AddFile added = delta::write_data_file(
        con, table_path, commit.metadata_after(), "SELECT " + select + " " + joined + " UNION ALL SELECT " + unwritten_select + " " + unwritten,
        columns);
    if (!added.path.empty()) commit.add(added);
    if (delta::change_data_feed_enabled(commit.metadata_after())) {
      // The change data feed: each window changed, before and after; each window written anew.
      std::string before;
      for (const auto& c : columns) before += (before.empty() ? "g." : ", g.") + q(c.name);
      std::string changed_windows = " " + joined + " WHERE r.ws IS NOT NULL AND (" + differs + ")";
      delta::ChangeDataFile file = delta::write_change_data_file(
          con, table_path, commit.metadata_after(),
          "SELECT " + before + ", 'update_preimage' AS _change_type" + changed_windows + " UNION ALL SELECT " + select +
              ", 'update_postimage'" + changed_windows + " UNION ALL SELECT " + unwritten_select + ", 'insert' " + unwritten,
          columns);
      if (!file.path.empty()) commit.add_change_data(file);
    }
    commit.tag_new_files(delta::kSeenBatchesTag, delta::seen_batches_text({{0, max_batch}}));
    commit.set_operation("RECOUNT");
    // The recount saw every source batch so far: check compares later arrivals against this.
    CommitRecord record;
    record.recount = true;
    record.source_max_batch_id = max_batch;
    commit.set_commit_info(commit_info_json(record));
    fault_point("before_delta_commit");
    commit.publish();
    return changes;
  });
}

}  // namespace

std::vector<RecountChange> recount_pipeline(const Pipeline& pipeline, const std::vector<std::string>& streams,
                                            const delta::TimeRange& range, int64_t memory_limit) {
  sql::MemoryBudget budget(memory_limit);  // outlives the database
  sql::Database db;
  sql::Connection con(db);
  budget.apply(con);
  std::vector<RecountChange> all;
  for (const auto& name : streams) {
    const Stream* s = pipeline.find_stream(name);
    if (!s) throw Error(pipeline.no_stream_named(name));
    if (s->kind != StreamKind::Window) throw Error("stream " + name + " is not a window stream; only window tables are recounted");
  }
  for (const auto& stream : pipeline.streams) {
    if (stream.kind != StreamKind::Window) continue;
    if (!streams.empty() && std::find(streams.begin(), streams.end(), stream.name) == streams.end()) continue;
    auto changes = recount_table(con, pipeline, stream, range);
    all.insert(all.end(), changes.begin(), changes.end());
  }
  return all;
}

}  // namespace lakestream
