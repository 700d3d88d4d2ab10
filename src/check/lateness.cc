#include "check/lateness.h"

#include <algorithm>
#include <cstdio>
#include <set>

#include "check/lake_views.h"
#include "pipeline/bronze_layout.h"
#include "sql/duckdb.h"
#include "util/error.h"
#include "util/plural.h"

namespace lakestream {

namespace {

constexpr int64_t kMinute = 60LL * 1000000;

bool has(const std::vector<delta::Column>& columns, const std::string& name) {
  return std::any_of(columns.begin(), columns.end(), [&](const delta::Column& c) { return c.name == name; });
}

}  // namespace

std::string compact_duration(int64_t us) {
  if (us == 0) return "0s";
  std::string text;
  int64_t s = us / 1000000;
  for (auto [unit, size] : {std::pair{"d", 86400LL}, {"h", 3600LL}, {"m", 60LL}, {"s", 1LL}}) {
    if (s >= size) {
      text += std::to_string(s / size) + unit;
      s %= size;
    }
  }
  return text.empty() ? std::to_string(us / 1000) + "ms" : text;
}

LatenessProfile lateness_profile(const Pipeline& pipeline, const std::string& stream_name) {
  const Stream* stream = pipeline.find_stream(stream_name);
  if (!stream) throw Error(pipeline.no_stream_named(stream_name));
  if (stream->kind != StreamKind::Window)
    throw Error("stream " + stream_name + " is not a window stream: only window streams have a watermark to choose");
  sql::Database db;
  sql::Connection con(db);
  auto snapshots = create_lake_views(con, pipeline);
  auto source = snapshots.find(stream->from);
  if (source == snapshots.end())
    throw Error("table " + stream->from + " does not exist yet: run the pipeline first (lakestream run), so that "
                "there are events to profile");
  const auto& columns = source->second.metadata.schema;

  // The order the stream reads events in: bronze batch by batch, each batch whole (its watermark
  // moves only at the batch's end), then partition and offset. A source without batches is read
  // one event at a time in Kafka's order, or failing that, in event-time order.
  std::string order;
  std::string arrived_at = arrival_column(columns);
  for (const std::string& c : {std::string("_batch_id"), arrived_at, std::string("partition"), std::string("offset")})
    if (!c.empty() && has(columns, c)) order += (order.empty() ? "" : ", ") + sql::quote_ident(c);
  std::string et = sql::quote_ident(stream->event_time);
  if (order.empty()) order = et;
  std::string step = has(columns, "_batch_id") ? "_batch_id" : "seq";
  std::string arrival = "epoch_us(" + (arrived_at.empty() ? et : sql::quote_ident(arrived_at)) + ")";
  std::string window = std::to_string(stream->window_us);
  con.exec("CREATE TEMP TABLE arrivals AS SELECT row_number() OVER (ORDER BY " + order + ") AS seq, " +
           (step == "seq" ? "row_number() OVER (ORDER BY " + order + ")" : step) + " AS step, epoch_us(" + et + ") AS t, " + arrival + " AS arrived FROM " +
           sql::quote_ident(stream->from) + " WHERE " + et + " IS NOT NULL" +
           (stream->filter.empty() ? "" : " AND (" + stream->filter + ")"));
  // prior: the newest event time of the steps before each event's; reached: including its own.
  con.exec("CREATE TEMP TABLE running AS SELECT seq, t, arrived, max(t) OVER (ORDER BY step RANGE BETWEEN UNBOUNDED "
           "PRECEDING AND 1 PRECEDING) AS prior, max(t) OVER (ORDER BY step) AS reached FROM arrivals");
  // When (in arrival time) the newest event time first reached each value.
  con.exec("CREATE TEMP TABLE first_reached AS SELECT reached, min(arrived) AS arrived FROM running GROUP BY reached");
  con.exec("CREATE TEMP TABLE window_ends AS SELECT DISTINCT t - ((t % " + window + ") + " + window + ") % " + window +
           " + " + window + " AS window_end FROM arrivals");

  LatenessProfile profile;
  profile.stream = stream_name;
  profile.source_table = stream->from;
  profile.events = con.scalar_int("SELECT count(*) FROM arrivals");
  profile.max_lateness_us = con.scalar_int("SELECT coalesce(max(prior - t), 0) FROM running WHERE prior > t");

  std::set<int64_t> delays = {0, kMinute, 5 * kMinute, 15 * kMinute, 30 * kMinute, 60 * kMinute, 120 * kMinute,
                              360 * kMinute, 720 * kMinute, 1440 * kMinute, stream->watermark_delay_us};
  // Spark's rule per operator: with dedup an event is late when its time is at or before the
  // watermark; without, when its window's end is.
  std::string judged = stream->dedup.empty() ? "t - ((t % " + window + ") + " + window + ") % " + window + " + " + window
                                             : "t";
  for (int64_t delay : delays) {
    LatenessRow row;
    row.delay_us = delay;
    row.configured = delay == stream->watermark_delay_us;
    std::string d = std::to_string(delay);
    row.dropped = con.scalar_int("SELECT count(*) FROM running WHERE prior IS NOT NULL AND " + judged + " <= prior - " + d);
    // A window closes when the newest event time passes its end plus the delay; the hold is the
    // arrival time from its end being reached to that moment.
    sql::Rows held = con.query(
        "WITH closes AS (SELECT e.window_end, opened.arrived AS opened_at, closed.arrived AS closed_at FROM window_ends e "
        "ASOF LEFT JOIN first_reached opened ON e.window_end <= opened.reached "
        "ASOF LEFT JOIN first_reached closed ON e.window_end + " + d + " <= closed.reached) "
        "SELECT count(closed_at)::VARCHAR AS closed, (count(*) - count(closed_at))::VARCHAR AS open, "
        "coalesce(median((closed_at - opened_at) / 1e6), 0)::VARCHAR AS median_s, "
        "coalesce(max((closed_at - opened_at) / 1e6), 0)::VARCHAR AS max_s FROM closes");
    row.windows_closed = std::stoll(held.text(0, "closed"));
    row.windows_open = std::stoll(held.text(0, "open"));
    row.median_hold_s = std::stod(held.text(0, "median_s"));
    row.max_hold_s = std::stod(held.text(0, "max_s"));
    profile.rows.push_back(row);
  }
  return profile;
}

std::string format_lateness(const LatenessProfile& p) {
  std::string text = "lateness of " + p.stream + ": " + counted(p.events, "event", "events") + " of " + p.source_table +
                     " in the order the stream reads them (batch by batch); the latest arrived " +
                     compact_duration(p.max_lateness_us) + " behind the newest event time of the batches before it\n";
  char line[256];
  std::snprintf(line, sizeof line, "  %-10s %10s %8s   %s\n", "delay", "dropped", "share",
                "holds a window open after its end (arrival time): median / max, windows closed / still open");
  text += line;
  for (const auto& r : p.rows) {
    double share = p.events ? 100.0 * r.dropped / p.events : 0;
    std::snprintf(line, sizeof line, "%s %-10s %10lld %7.1f%%   %s / %s, %lld / %lld%s\n", r.configured ? "*" : " ",
                  compact_duration(r.delay_us).c_str(), static_cast<long long>(r.dropped), share,
                  compact_duration(static_cast<int64_t>(r.median_hold_s * 1e6)).c_str(),
                  compact_duration(static_cast<int64_t>(r.max_hold_s * 1e6)).c_str(),
                  static_cast<long long>(r.windows_closed), static_cast<long long>(r.windows_open),
                  r.configured ? "   (the stream's watermark now)" : "");
    text += line;
  }
  return text;
}

}  // namespace lakestream
