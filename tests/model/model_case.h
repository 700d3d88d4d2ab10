// One generated case of the differential test: a pipeline (its shape as data, rendered to a
// pipeline file) and a schedule of sends and runs. The reference model and the driver both read
// this; neither shares code with src/streams or src/check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lakestream::model {

// The source's fields, always these (schema order): id bigint, k2 string, g string, n bigint,
// x double, d decimal(18,2), ts timestamp. The bronze table adds the derived columns
// dt = date(ts) and gu = upper(g).
struct Event {
  std::string value;  // the Kafka message value as sent (JSON, or text that breaks the schema)
  int partition = 0;
  bool valid = true;  // parses and fits the schema (and `required`); else quarantined
  std::optional<int64_t> id;
  std::optional<std::string> k2, g;
  std::optional<int64_t> n;
  std::optional<double> x;
  std::optional<int64_t> d_cents;
  std::optional<int64_t> ts_us;
};

// A record as Kafka holds it: an event at its partition and offset.
struct Record {
  Event event;
  int partition = 0;
  int64_t offset = 0;
};

// Columns a window stream may group or dedup by; "dt" and "gu" are derived.
enum class Column { id, k2, g, n, x, d, ts, dt, gu };
const char* column_name(Column c);

// The restricted filter forms the generator writes (the model evaluates each by hand).
enum class Filter { none, n_above, g_is_a, x_not_null, n_null_or_even, g_not_b };
std::string filter_sql(Filter f, int64_t threshold);

struct Aggregate {
  std::string function;         // count, sum, min, max, avg
  std::optional<Column> argument;  // none: count(*)
};

struct WindowSpec {
  std::string name;       // stream name; its table is "<name>_t"
  Filter filter = Filter::none;
  int64_t filter_threshold = 0;
  int64_t delay_us = 0;
  int64_t window_us = 0;
  std::vector<Column> dedup;
  std::vector<Column> group_by;
  bool update = false;    // output = "update", else "append"
  std::vector<Aggregate> aggregates;  // columns a0, a1, ...
};

struct LatestSpec {
  std::vector<Column> key;  // id, or id and k2
};

struct PipelineSpec {
  std::string topic;
  int partitions = 1;
  bool partition_by_dt = false;
  bool require_ts = false;  // required = ["id", "ts"] (always with a latest stream)
  std::optional<LatestSpec> latest;
  std::vector<WindowSpec> windows;
};

// A schedule step: a send of events (maybe none), then a run when `run` is set.
struct Step {
  std::vector<Event> send;
  bool run = true;
};

struct Case {
  uint64_t seed = 0;
  PipelineSpec pipeline;
  std::vector<Step> steps;  // the last step always runs
};

// Shapes the generator may produce. All on by default: a shape turned off is named in the test
// output, so the suite can only be made quieter on purpose (LAKESTREAM_MODEL_WITHOUT=a,b). Each
// switch exists to tell apart the failures of one rule while it is being fixed.
struct Coverage {
  bool group_by = true;              // group_by in window streams (check must recount per group)
  bool dedup_subset = true;          // dedup keys that are not the whole event (check must use them)
  bool doubles = true;               // the double column in aggregates (compared within 1e-9)
  bool decimal_avg = true;           // avg over the decimal column (decimal(22,6), half up)
  bool null_groups_update = true;    // group_by with output = "update" (a NULL group is one row)
  bool silver_ties = true;           // one id at one order_by value in several events
  bool composite_keys = true;        // latest key (id, k2), k2 may be NULL
  bool bad_records = true;           // records that break the schema
  bool several_windows = true;       // several window streams over one bronze
  bool resends = true;               // exact resends of earlier events
};
Coverage coverage_from_env();  // LAKESTREAM_MODEL_WITHOUT=group_by,doubles,...

Case generate_case(uint64_t seed, const Coverage& coverage);

// The pipeline file for `bootstrap` (tables and checkpoints in the file's folder).
std::string pipeline_toml(const PipelineSpec& p, const std::string& bootstrap);

// A human-readable reproduction: pipeline file and the sends, one JSON line per event.
std::string describe_case(const Case& c);

}  // namespace lakestream::model
