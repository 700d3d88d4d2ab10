#include "table/file_pruning.h"

#include <nlohmann/json.hpp>

#include "table/column_mapping.h"
#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "table/schema_columns.h"
#include "util/error.h"

namespace lakestream::delta {

namespace {

std::string instant_sql(int64_t us) { return "make_timestamp(" + std::to_string(us) + ")::TIMESTAMPTZ"; }

// The file's min or max of `column` from its stats JSON, as a TIMESTAMPTZ SQL value; NULL when
// the stats do not say.
std::string stat_sql(const AddFile& file, const std::string& which, const std::string& column, const std::string& type) {
  if (file.stats.empty()) return "NULL::TIMESTAMPTZ";
  try {
    auto stats = nlohmann::json::parse(file.stats);
    auto values = stats.find(which);
    if (values == stats.end() || !values->contains(column) || !(*values)[column].is_string()) return "NULL::TIMESTAMPTZ";
    std::string cast = "CAST(CAST(" + sql::quote_literal((*values)[column].get<std::string>()) + " AS " + type +
                       ") AS TIMESTAMPTZ)";
    // Spark truncates timestamp stats to milliseconds: the true max may be up to 1 ms later.
    return which == "maxValues" ? "(" + cast + " + INTERVAL 1 MILLISECOND)" : cast;
  } catch (const nlohmann::json::exception&) {
    return "NULL::TIMESTAMPTZ";
  }
}

}  // namespace

bool TimeRange::is_everything() const {
  return since_us == std::numeric_limits<int64_t>::min() && until_us == std::numeric_limits<int64_t>::max();
}

std::string TimeRange::contains_sql(const std::string& column_sql) const {
  std::string condition = "true";
  if (since_us != std::numeric_limits<int64_t>::min()) condition += " AND " + column_sql + " >= " + instant_sql(since_us);
  if (until_us != std::numeric_limits<int64_t>::max()) condition += " AND " + column_sql + " < " + instant_sql(until_us);
  return condition;
}

Snapshot prune_files(sql::Connection& con, const Snapshot& snapshot, const std::string& column, const TimeRange& range) {
  if (range.is_everything() || snapshot.files.empty()) return snapshot;
  const Column* found = find_column(snapshot.metadata.schema, column);
  if (!found) throw Error("table " + snapshot.table.path() + " has no column " + column + " to select a time range by");
  const std::string type = duckdb_type_of(found->type);
  bool partition = false;
  for (const auto& p : snapshot.metadata.partition_columns) partition = partition || p == column;
  // Partition values and statistics name the column by its physical name under column mapping.
  const std::string stored = physical_name(snapshot.metadata, *found);

  // One row per file: its index and the lowest and highest value it can hold.
  std::string values;
  for (size_t i = 0; i < snapshot.files.size(); i++) {
    const AddFile& file = snapshot.files[i];
    std::string low, high;
    if (partition) {
      auto it = file.partition_values.find(stored);
      std::string value = "CAST(" + partition_value_sql(it == file.partition_values.end() ? std::nullopt : it->second,
                                                        found->type) + " AS TIMESTAMPTZ)";
      low = value;
      // A date partition holds the whole day.
      high = type == "DATE" ? "(" + value + " + INTERVAL 1 DAY - INTERVAL 1 MICROSECOND)" : value;
    } else {
      low = stat_sql(file, "minValues", stored, type);
      high = stat_sql(file, "maxValues", stored, type);
    }
    values += (values.empty() ? "(" : ", (") + std::to_string(i) + ", " + low + ", " + high + ")";
  }
  std::string overlaps = "(high IS NULL OR " + TimeRange{range.since_us, std::numeric_limits<int64_t>::max()}.contains_sql("high") +
                         ") AND (low IS NULL OR " + TimeRange{std::numeric_limits<int64_t>::min(), range.until_us}.contains_sql("low") + ")";
  sql::Rows kept = con.query("SELECT i FROM (VALUES " + values + ") AS f(i, low, high) WHERE " + overlaps + " ORDER BY i");
  Snapshot pruned = snapshot;
  pruned.files.clear();
  for (const auto& row : kept.rows) pruned.files.push_back(snapshot.files[std::stoul(*row[0])]);
  return pruned;
}

}  // namespace lakestream::delta
