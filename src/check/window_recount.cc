#include "check/window_recount.h"

#include <algorithm>
#include <map>

#include "pipeline/change_columns.h"
#include "sql/duckdb.h"
#include "table/parquet_file.h"

namespace lakestream {

namespace {

std::string q(const std::string& name) { return sql::quote_ident(name); }

bool is_double(const std::string& type) { return type == "DOUBLE" || type == "FLOAT"; }
bool is_decimal(const std::string& type) { return type.rfind("DECIMAL", 0) == 0; }

// Whether aggregate i is a sum or average that the table holds as a double.
bool rounds(const Aggregate& a, const std::string& type) {
  return (a.function == "sum" || a.function == "avg") && is_double(type);
}

// Spark's average of a decimal in `type` (DECIMAL(p,s)): the exact sum over the count, rounded half
// up (away from zero) to scale s, in integers: the sum in units of 10^-s over the count.
std::string exact_decimal_average(const std::string& argument, const std::string& type) {
  int scale = std::stoi(type.substr(type.find(',') + 1));
  std::string units = "CAST(sum(" + argument + ") * 1" + std::string(static_cast<size_t>(scale), '0') + " AS HUGEINT)";
  std::string twice_count = "(2 * count(" + argument + "))";
  std::string one_unit = scale == 0 ? "1" : "0." + std::string(static_cast<size_t>(scale - 1), '0') + "1";
  return "CAST(CAST(sign(" + units + ") * ((abs(" + units + ") * 2 + count(" + argument + ")) // " + twice_count +
         ") AS DECIMAL(38,0)) * " + one_unit + " AS " + type + ")";
}

}  // namespace

std::string window_copies_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                              const std::string& source_view) {
  // The source batch a copy came in: of a change data feed, the version of the change.
  const std::string batch_column = stream.read == SourceRead::Changes ? kCommitVersionColumn : "_batch_id";
  bool has_batch_id = false, has_position = false;
  for (const auto& c : source_columns) {
    if (c.name == batch_column) has_batch_id = true;
    if (c.name == "offset") has_position = true;
  }
  std::string width = "INTERVAL '" + std::to_string(stream.window_us) + " microseconds'";
  return "SELECT time_bucket(" + width + ", " + q(stream.event_time) + ", TIMESTAMPTZ '1970-01-01 00:00:00+00') AS ws, *, " +
         (has_batch_id ? q(batch_column) : std::string("NULL::BIGINT")) + " AS _batch, " +
         (has_position ? "[\"partition\"::BIGINT, \"offset\"::BIGINT]" : "NULL::BIGINT[]") + " AS _position FROM " +
         source_view + " WHERE " + q(stream.event_time) + " IS NOT NULL" +
         (stream.filter.empty() ? "" : " AND (" + stream.filter + ")");
}

std::string window_first_copies_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                                    const std::string& copies) {
  std::string identity;
  if (!stream.dedup.empty()) {
    for (const auto& d : stream.dedup) identity += (identity.empty() ? "" : ", ") + q(d);
  } else {
    for (const auto& c : source_columns)
      if (!is_lineage_column(c.name)) identity += (identity.empty() ? "" : ", ") + q(c.name);
  }
  return "SELECT * FROM " + copies + " QUALIFY row_number() OVER (PARTITION BY " + identity +
         " ORDER BY _batch NULLS LAST, _position NULLS LAST) = 1";
}

std::string window_events_sql(const Stream& stream, const std::vector<delta::Column>& source_columns,
                              const std::string& source_view) {
  return window_first_copies_sql(stream, source_columns, "(" + window_copies_sql(stream, source_columns, source_view) + ")");
}

void create_window_copies(sql::Connection& con, const Stream& stream, const std::vector<delta::Column>& source_columns,
                          const std::string& source_view, const MetWatermarks& watermarks, const std::string& into) {
  con.exec("CREATE OR REPLACE TEMP TABLE window_met (source_batch_id BIGINT, watermark BIGINT)");
  {
    // The first watermark recorded for a source batch is the one it met: a stream state written
    // before each source batch was recorded once may hold a later one too (from a batch that read
    // only a compaction of the source). The watermark never goes back, so the first is the least.
    std::map<int64_t, int64_t> first_met;
    for (const auto& [batch, mark] : watermarks.by_source_batch) {
      auto [at, inserted] = first_met.emplace(batch, mark);
      if (!inserted) at->second = std::min(at->second, mark);
    }
    sql::Appender appender(con, "window_met");
    for (const auto& [batch, mark] : first_met) {
      appender.append_int64(batch);
      appender.append_int64(mark);
      appender.end_row();
    }
  }
  std::string met = "coalesce(h.watermark, " + std::to_string(watermarks.next) + ")";
  std::string judged = stream.dedup.empty() ? "epoch_us(c.ws) + " + std::to_string(stream.window_us)
                                            : "epoch_us(c." + q(stream.event_time) + ")";
  con.exec("CREATE OR REPLACE TEMP TABLE " + into + " AS SELECT row_number() OVER () AS _copy, c.*, " + met + " AS _met, " +
           judged + " <= " + met + " AS _late FROM (" + window_copies_sql(stream, source_columns, source_view) +
           ") c ASOF LEFT JOIN window_met h ON c._batch <= h.source_batch_id");
  con.exec("DROP TABLE window_met");
}

void create_window_events(sql::Connection& con, const Stream& stream, const std::vector<delta::Column>& source_columns,
                          const std::string& copies, const std::string& where, const std::string& into) {
  std::string passing = "(SELECT * FROM " + copies + " WHERE " + where + ")";
  if (stream.dedup.empty()) {
    con.exec("CREATE OR REPLACE TEMP TABLE " + into + " AS " + window_first_copies_sql(stream, source_columns, passing));
    return;
  }
  // Walks the keys with more than one copy, in the order the stream read them.
  std::string keys;
  for (const auto& d : stream.dedup) keys += (keys.empty() ? "" : ", ") + q(d);
  sql::Rows rows = con.query("SELECT _copy, dense_rank() OVER (ORDER BY " + keys + ") AS k, epoch_us(" +
                             q(stream.event_time) + ") AS t, _met FROM " + passing + " QUALIFY count(*) OVER (PARTITION BY " +
                             keys + ") > 1 ORDER BY k, _batch NULLS LAST, _position NULLS LAST");
  con.exec("CREATE OR REPLACE TEMP TABLE window_remembered (_copy BIGINT)");
  {
    sql::Appender remembered(con, "window_remembered");
    std::string key;
    int64_t counted_at = 0;  // the event time of the key's last counted copy
    for (size_t i = 0; i < rows.size(); i++) {
      int64_t t = std::stoll(rows.text(i, "t")), met = std::stoll(rows.text(i, "_met"));
      // Remembered until the watermark reaches counted_at + delay. A late copy (the batch truth
      // takes those too) within the delay of the counted one, or at its very time, is the same
      // event: an old copy sent again does not count twice.
      bool same_key = rows.text(i, "k") == key;
      if (same_key && (counted_at + stream.watermark_delay_us > std::min(met, t) || t == counted_at)) {
        remembered.append_int64(std::stoll(rows.text(i, "_copy")));
        remembered.end_row();
        continue;
      }
      key = rows.text(i, "k");
      counted_at = t;
    }
  }
  con.exec("CREATE OR REPLACE TEMP TABLE " + into + " AS SELECT * FROM " + passing +
           " WHERE _copy NOT IN (SELECT _copy FROM window_remembered)");
  con.exec("DROP TABLE window_remembered");
}

std::vector<std::string> aggregate_types(const Stream& stream, const std::vector<delta::Column>& gold_columns) {
  std::vector<std::string> types;
  for (const auto& a : stream.aggregates) {
    std::string type;
    for (const auto& c : gold_columns)
      if (c.name == a.name) type = delta::duckdb_type_of(c.type);
    types.push_back(type);
  }
  return types;
}

std::string window_aggregates_sql(const Stream& stream, const std::vector<std::string>& types) {
  std::string s;
  for (size_t i = 0; i < stream.aggregates.size(); i++) {
    const auto& a = stream.aggregates[i];
    std::string type = i < types.size() ? types[i] : "";
    std::string value = a.function + "(" + a.argument + ")";
    if (!type.empty()) value = "CAST(" + value + " AS " + type + ")";
    if (a.function == "avg" && is_decimal(type)) value = exact_decimal_average(a.argument, type);
    s += value + " AS " + q(a.name) + ", ";
    if (rounds(a, type))
      s += (a.function == "sum" ? "sum" : "avg") + std::string("(abs(") + a.argument + ")) AS _abs" + std::to_string(i) + ", ";
  }
  return s + "count(*) AS _events";
}

std::string same_aggregate_sql(const Stream& stream, size_t i, const std::string& type, const std::string& a,
                               const std::string& b) {
  std::string name = q(stream.aggregates.at(i).name);
  std::string x = a + "." + name, y = b + "." + name;
  std::string exact = x + " IS NOT DISTINCT FROM " + y;
  if (!rounds(stream.aggregates[i], type)) return "(" + exact + ")";
  char tolerance[32];
  std::snprintf(tolerance, sizeof tolerance, "%g", kDoubleTolerance);
  return "(" + exact + " OR abs(" + x + " - " + y + ") <= " + tolerance + " * greatest(abs(" + x + "), abs(" + y +
         "), " + b + "._abs" + std::to_string(i) + ", 1))";
}

std::string window_key_sql(const Stream& stream, const std::string& alias) {
  std::string prefix = alias.empty() ? "" : alias + ".";
  std::string s = prefix + "ws";
  for (const auto& g : stream.group_by) s += ", " + prefix + q(g);
  return s;
}

}  // namespace lakestream
