#include "check/window_recount.h"

#include <set>

#include "sql/duckdb.h"

namespace lakestream {

bool is_lineage_column(const std::string& name) {
  static const std::set<std::string> lineage = {"partition", "offset", "kafka_timestamp", "key", "_batch_id", "_ingested_at"};
  return lineage.count(name) > 0;
}

std::string window_events_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                              const std::string& source_view) {
  std::string event_columns;
  bool has_batch_id = false;
  for (const auto& c : source_columns) {
    if (c.name == "_batch_id") has_batch_id = true;
    if (is_lineage_column(c.name)) continue;
    event_columns += (event_columns.empty() ? "" : ", ") + sql::quote_ident(c.name);
  }
  std::string first_batch = has_batch_id ? "min(_batch_id)" : "NULL::BIGINT";
  std::string width = "INTERVAL '" + std::to_string(stream.window_us) + " microseconds'";
  return "SELECT time_bucket(" + width + ", " + sql::quote_ident(stream.event_time) +
         ", TIMESTAMPTZ '1970-01-01 00:00:00+00') AS ws, * FROM (SELECT " + event_columns + ", " + first_batch +
         " AS _first_batch FROM " + source_view + " GROUP BY ALL) events WHERE " + sql::quote_ident(stream.event_time) +
         " IS NOT NULL" + (stream.filter.empty() ? "" : " AND (" + stream.filter + ")");
}

std::string window_aggregates_sql(const Stream& stream) {
  std::string s;
  for (const auto& a : stream.aggregates)
    s += a.function + "(" + a.argument + ") AS " + sql::quote_ident(a.name) + ", ";
  return s + "count(*) AS _events";
}

std::string window_key_sql(const Stream& stream) {
  std::string s = "ws";
  for (const auto& g : stream.group_by) s += ", " + sql::quote_ident(g);
  return s;
}

}  // namespace lakestream
