// Reading lakestream.toml into a validated Pipeline: the one place that knows the file format
// (docs/pipeline-file.md), with [kafka] and the streams here, [lake] and the sources in files of
// their own. Each setting is checked where it is read, so every error can name the file, the
// line and the key, and say what is allowed.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>

#include "pipeline/bronze_layout.h"
#include "pipeline/did_you_mean.h"
#include "pipeline/lake_section.h"
#include "pipeline/pipeline.h"
#include "pipeline/pipeline_mistakes.h"
#include "pipeline/setting_values.h"
#include "pipeline/source_section.h"
#include "pipeline/stream_graph.h"
#include "pipeline/toml_section.h"
#include "storage/storage_url.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kIngestKeys{"kind", "table", "source", "derived", "partition_by", "max_quarantine_share",
                                           "target_latency", "column_mapping", "iceberg"};
const std::vector<std::string> kLatestKeys{"kind", "table", "from", "key", "order_by", "entity", "max_staleness",
                                           "max_files_per_trigger", "deletes", "deletes_retention", "target_latency", "deletion_vectors",
                                           "column_mapping", "change_data_feed", "read", "iceberg"};
const std::vector<std::string> kWindowKeys{"kind",   "table",    "from",          "filter",   "event_time",
                                           "watermark", "dedup", "window",        "window_column", "window_end_column", "group_by",
                                           "output", "aggregates", "max_late_share", "max_staleness",
                                           "max_files_per_trigger", "target_latency", "column_mapping", "change_data_feed", "read", "iceberg"};
const std::pair<const char*, const std::vector<std::string>*> kKindKeys[] = {
    {"ingest", &kIngestKeys}, {"latest", &kLatestKeys}, {"window", &kWindowKeys}};
constexpr const char* kDurationHint = "write e.g. \"1 hour\", \"15 minutes\", \"90s\"";

std::string read_pipeline_text(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  std::string text;
  if (fd >= 0) {
    char buffer[65536];
    ssize_t n;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) text.append(buffer, static_cast<size_t>(n));
    }
    int read_errno = errno;
    ::close(fd);
    if (n == 0) return text;
    errno = read_errno;
  }
  throw Error("cannot read pipeline file " + path + ": " + std::strerror(errno) + "; pass -p FILE or create lakestream.toml");
}

// Tables and streams become folder names and SQL identifiers: plain identifiers only.
void require_identifier(const TomlSection& parent, const std::string& name, const std::string& what) {
  if (!is_identifier(name)) {
    parent.fail(name, "'" + name + "' is not a valid " + what +
                          " name; use letters, digits and _ (not starting with a digit)");
  }
}

void read_kafka_properties(const TomlSection& kafka, KafkaSettings& settings, PipelineMistakes& mistakes) {
  if (auto properties = kafka.table("properties")) {
    for (const auto& entry : properties->entries()) mistakes.keep(properties->key_of(entry.name), [&] {
      if (entry.name == "bootstrap.servers" || entry.name == "metadata.broker.list") {
        // Two places for one setting would leave the reader guessing which one wins.
        properties->fail(entry.name, "set the brokers with kafka.bootstrap instead, e.g. bootstrap = \"host:9092\"");
      }
      // librdkafka takes every value as text; numbers and booleans are written bare in TOML.
      std::string value;
      if (entry.value->is_string()) value = entry.value->as_string()->get();
      else if (entry.value->is_integer()) value = std::to_string(entry.value->as_integer()->get());
      else if (entry.value->is_boolean()) value = entry.value->as_boolean()->get() ? "true" : "false";
      else properties->fail(entry.name, "must be a string, an integer or a boolean, not " + toml_type_words(*entry.value));
      settings.properties.emplace_back(entry.name, expanded(*properties, entry.name, value));
    });
  }
}

// True when every source declared reads a Kinesis stream (kinesis = "..."): such a pipeline needs
// no [kafka].
bool reads_kinesis_only(const TomlSection& root) {
  auto sources = root.table("sources");
  if (!sources || sources->entries().empty()) return false;
  for (const auto& entry : sources->entries()) {
    auto source = entry.value->is_table() ? sources->table(entry.name) : std::nullopt;
    if (!source || !source->has("kinesis")) return false;
  }
  return true;
}

void read_kafka(const TomlSection& root, KafkaSettings& settings, PipelineMistakes& mistakes) {
  auto kafka = root.table("kafka");
  if (!kafka && reads_kinesis_only(root)) return;  // no broker to name
  if (!kafka) {
    throw_at(root.file(), 1, "kafka.bootstrap",
             "missing; add [kafka] with bootstrap = \"embedded\" (the local `lakestream broker`) or \"host:9092\"");
  }
  kafka->allow_only({"bootstrap", "group", "properties"}, &mistakes);
  mistakes.read(kafka->key_of("bootstrap"), [&] {
    settings.bootstrap = expanded(*kafka, "bootstrap",
                                  kafka->required_string("bootstrap", "set bootstrap = \"embedded\" (the local `lakestream "
                                                                      "broker`) or \"host:9092,host2:9092\""));
  });
  if (kafka->has("group")) mistakes.read(kafka->key_of("group"), [&] { settings.group = read_group_name(*kafka); });
  mistakes.read(kafka->key_of("properties"), [&] { read_kafka_properties(*kafka, settings, mistakes); });
}

// A list of column names: not empty strings, none twice.
std::vector<std::string> column_list(const TomlSection& section, const std::string& setting, bool required,
                                     const std::string& how_to_set_it) {
  auto columns = section.string_list(setting);
  if (!columns || columns->empty()) {
    if (required) section.fail(setting, (columns ? "is empty; " : "missing; ") + how_to_set_it);
    return {};
  }
  for (size_t i = 0; i < columns->size(); ++i) {
    if ((*columns)[i].empty()) section.fail(setting, "holds an empty column name; " + how_to_set_it);
    if (std::find(columns->begin(), columns->begin() + static_cast<std::ptrdiff_t>(i), (*columns)[i]) !=
        columns->begin() + static_cast<std::ptrdiff_t>(i)) {
      section.fail(setting, "names column '" + (*columns)[i] + "' twice");
    }
  }
  return *columns;
}

int64_t duration_setting(const TomlSection& section, const std::string& setting, const std::string& what_it_is) {
  std::string text = section.required_string(setting, "set the " + what_it_is + "; " + kDurationHint);
  auto us = parse_duration_us(text);
  if (!us) section.fail(setting, "'" + text + "' is not a duration; " + kDurationHint);
  return *us;
}

// How long a latest stream remembers a delete: a duration ("30 days") for a timestamp or date
// order_by, a positive number in order_by's units for a numeric one. Meaningless without deletes.
DeletesRetention deletes_retention_setting(const TomlSection& section) {
  const std::string how = "write a duration for a timestamp order_by (e.g. \"30 days\") or a number in a numeric "
                          "order_by's units (e.g. 100000000 for a Debezium lsn)";
  if (!section.has("deletes"))
    section.fail("deletes_retention", "is set but deletes is not; deletes_retention says how long the deletes that "
                                      "deletes = \"...\" marks are remembered");
  DeletesRetention retention;
  retention.line = section.line_of("deletes_retention");
  if (section.is_string("deletes_retention")) {
    retention.text = *section.string("deletes_retention");
    auto us = parse_duration_us(retention.text);
    if (!us || *us <= 0) section.fail("deletes_retention", "'" + retention.text + "' is not a duration; " + how);
    retention.amount = *us;
    return retention;
  }
  std::optional<int64_t> amount;
  try {
    amount = section.positive_integer("deletes_retention");
  } catch (const Error&) {
    section.fail("deletes_retention", "must be a duration or a positive number; " + how);
  }
  retention.is_duration = false;
  retention.amount = *amount;
  retention.text = std::to_string(*amount);
  return retention;
}

// A target latency: a duration from 10 ms to 1 hour.
int64_t target_latency_setting(const TomlSection& section) {
  int64_t us = duration_setting(section, "target_latency", "most an event may wait for its commit, e.g. \"500ms\"");
  if (us < 10'000 || us > 3'600'000'000LL)
    section.fail("target_latency", "must be from 10ms to 1 hour; write e.g. \"500ms\", \"2s\"");
  return us;
}

// True when the parentheses of a SQL expression close in order (quoted text aside), so that
// "sum(a) + sum(b)" is not read as sum of "a) + sum(b".
bool parentheses_balance(const std::string& expression) {
  int depth = 0;
  char quote = 0;
  for (char c : expression) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(') {
      ++depth;
    } else if (c == ')' && --depth < 0) {
      return false;
    }
  }
  return depth == 0 && !quote;
}

Aggregate read_aggregate(const TomlSection& aggregates, const TomlSection::Entry& entry) {
  const std::string forms = "write count(*), count(expr), sum(expr), min(expr), max(expr) or avg(expr)";
  if (!is_identifier(entry.name)) {
    aggregates.fail(entry.name, "'" + entry.name + "' is not a valid column name; use letters, digits and _ (not starting with a digit)");
  }
  if (!entry.value->is_string()) aggregates.fail(entry.name, "must be a string, not " + toml_type_words(*entry.value) + "; " + forms);
  std::string text = trim(entry.value->as_string()->get());
  size_t open = text.find('(');
  if (open == std::string::npos || text.back() != ')') {
    aggregates.fail(entry.name, "'" + text + "' is not an aggregate; " + forms);
  }
  Aggregate aggregate;
  aggregate.name = entry.name;
  aggregate.function = lower(trim(text.substr(0, open)));
  aggregate.argument = trim(text.substr(open + 1, text.size() - open - 2));
  static const std::vector<std::string> kFunctions{"count", "sum", "min", "max", "avg"};
  if (std::find(kFunctions.begin(), kFunctions.end(), aggregate.function) == kFunctions.end()) {
    aggregates.fail(entry.name, "'" + text + "' is not an aggregate (unknown function '" + aggregate.function + "'" +
                                    did_you_mean(aggregate.function, kFunctions) + "); " + forms);
  }
  if (aggregate.argument.empty() || !parentheses_balance(aggregate.argument)) {
    aggregates.fail(entry.name, "'" + text + "' is not a single aggregate; " + forms);
  }
  if (aggregate.argument == "*" && aggregate.function != "count") {
    aggregates.fail(entry.name, "'" + text + "': only count takes *; " + forms);
  }
  if (lower(aggregate.argument).starts_with("distinct ")) {
    // Windows are aggregated batch by batch; a distinct count cannot be added up that way.
    aggregates.fail(entry.name, "'" + text + "': distinct aggregates cannot be kept up batch by batch; " + forms +
                                    " (use dedup to drop duplicate events)");
  }
  return aggregate;
}

// [streams.X.aggregates], each on its own.
void read_aggregates(const TomlSection& section, Stream& stream, PipelineMistakes& mistakes) {
  auto aggregates = section.required_table("aggregates", "add [" + section.key() + ".aggregates] with e.g. orders = \"count(*)\"");
  std::vector<std::string> output_columns{stream.window_column};
  if (!stream.window_end_column.empty()) output_columns.push_back(stream.window_end_column);
  output_columns.insert(output_columns.end(), stream.group_by.begin(), stream.group_by.end());
  for (const auto& entry : aggregates.entries()) {
    mistakes.keep(aggregates.key_of(entry.name), [&] {
      stream.aggregates.push_back(read_aggregate(aggregates, entry));
      stream.sql_lines["aggregates." + entry.name] = aggregates.line_of(entry.name);
      for (const auto& column : output_columns) {
        if (lower(column) == lower(entry.name)) {
          aggregates.fail(entry.name, "the table " + stream.table + " already has a column '" + column +
                                          "' (window_column or group_by); name the aggregate differently");
        }
      }
      output_columns.push_back(entry.name);
    });
  }
  if (aggregates.entries().empty()) aggregates.fail_here("declares no aggregate; add e.g. orders = \"count(*)\"");
}

void read_window_settings(const TomlSection& section, Stream& stream, PipelineMistakes& mistakes) {
  auto read = [&](const char* setting, const std::function<void()>& read_it) {
    return mistakes.read(section.key_of(setting), read_it);
  };
  read("change_data_feed", [&] {
    if (auto on = section.boolean("change_data_feed")) stream.change_data_feed = *on;
  });
  read("filter", [&] {
    if (auto filter = section.string("filter")) {
      stream.filter = trim(*filter);
      stream.sql_lines["filter"] = section.line_of("filter");
    }
  });
  read("event_time", [&] {
    stream.event_time = section.required_string("event_time", "name the event-time column, e.g. event_time = \"event_time\"");
  });
  read("watermark", [&] {
    stream.watermark_delay_us = duration_setting(section, "watermark", "watermark delay (how late an event may be)");
  });
  read("dedup", [&] {
    stream.dedup = column_list(section, "dedup", false, "name the columns that identify a duplicate, e.g. [\"order_id\"]");
  });
  read("window", [&] {
    stream.window_us = duration_setting(section, "window", "window size");
    if (stream.window_us <= 0) section.fail("window", "a window must be longer than 0; " + std::string(kDurationHint));
  });
  if (section.has("window_column")) {
    read("window_column", [&] {
      stream.window_column = section.required_string("window_column", "name the window-start column, e.g. \"hour\"");
      if (!is_identifier(stream.window_column)) {
        section.fail("window_column", "'" + stream.window_column + "' is not a valid column name; use letters, digits and _ (not starting with a digit)");
      }
    });
  }
  if (section.has("window_end_column")) {
    read("window_end_column", [&] {
      stream.window_end_column =
          section.required_string("window_end_column", "name the window-end column, e.g. \"window_end\"");
      if (!is_identifier(stream.window_end_column) || stream.window_end_column == stream.window_column) {
        section.fail("window_end_column", "'" + stream.window_end_column + "' is not a valid column name of its own; use "
                     "letters, digits and _ (not starting with a digit), other than window_column");
      }
    });
  }
  read("group_by", [&] {
    stream.group_by = column_list(section, "group_by", false, "name the grouping columns, e.g. [\"customer_id\"]");
  });
  read("output", [&] {
    if (auto output = section.string("output")) {
      if (*output != "append" && *output != "update") {
        section.fail("output", "'" + *output + "' is not an output mode; write \"append\" (a window written once, when "
                               "final) or \"update\" (windows upserted every batch)");
      }
      stream.output = *output == "update" ? OutputMode::Update : OutputMode::Append;
    }
  });
  read("aggregates", [&] { read_aggregates(section, stream, mistakes); });
}

// [streams.X.derived] (name = "SQL expression") and partition_by. The expressions are checked by
// DuckDB when the stream runs; the partition columns against the table's columns in stream_graph.
// `source` is null when the stream's source could not be read.
void read_derived(const TomlSection& section, Stream& stream, const Source* source, PipelineMistakes& mistakes) {
  if (auto derived = section.table("derived")) {
    for (const auto& entry : derived->entries()) mistakes.keep(derived->key_of(entry.name), [&] {
      const std::string example = "write e.g. dt = \"date(event_time)\"";
      if (!is_identifier(entry.name))
        derived->fail(entry.name, "'" + entry.name + "' is not a valid column name; use letters, digits and _ (not starting with a digit)");
      if (!entry.value->is_string())
        derived->fail(entry.name, "must be a SQL expression in a string, not " + toml_type_words(*entry.value) + "; " + example);
      std::string expression = trim(entry.value->as_string()->get());
      if (expression.empty() || !parentheses_balance(expression))
        derived->fail(entry.name, "'" + expression + "' is not a SQL expression; " + example);
      for (const auto& field : source ? source->schema.fields : std::vector<Field>{})
        if (lower(field.name) == lower(entry.name))
          derived->fail(entry.name, "source " + source->name + " already has a field '" + field.name + "'; name the derived column differently");
      if (is_lineage_column(lower(entry.name)))
        derived->fail(entry.name, "'" + lower(entry.name) + "' is a column ingest adds; name the derived column differently");
      stream.derived.emplace_back(entry.name, expression);
      stream.sql_lines["derived." + entry.name] = derived->line_of(entry.name);
    });
  }
}

void read_partitioning(const TomlSection& section, Stream& stream, const Source* source, PipelineMistakes& mistakes) {
  mistakes.read(section.key_of("derived"), [&] { read_derived(section, stream, source, mistakes); });
  mistakes.read(section.key_of("partition_by"), [&] {
    stream.partition_by = column_list(section, "partition_by", false, "name the partition columns, e.g. partition_by = [\"dt\"]");
  });
}

// A share such as "1%" or "0.5%", as a fraction; absent: -1 (no limit).
double share_setting(const TomlSection& section, const std::string& setting) {
  auto text = section.string(setting);
  if (!text) return -1;
  std::string value = trim(*text);
  const std::string hint = "write a percentage, e.g. \"1%\" or \"0.5%\"";
  if (value.empty() || value.back() != '%') section.fail(setting, "'" + value + "' is not a percentage; " + hint);
  std::string number = trim(value.substr(0, value.size() - 1));
  size_t used = 0;
  double percent = -1;
  try {
    percent = std::stod(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (number.empty() || used != number.size() || !(percent >= 0 && percent <= 100))
    section.fail(setting, "'" + value + "' is not a percentage from 0% to 100%; " + hint);
  return percent / 100;
}

// The limits check enforces; each kind allows only its own (allow_keys_of_kind saw to that).
void read_limits(const TomlSection& section, Stream& stream, PipelineMistakes& mistakes) {
  mistakes.read(section.key_of("max_quarantine_share"),
                [&] { stream.max_quarantine_share = share_setting(section, "max_quarantine_share"); });
  mistakes.read(section.key_of("max_late_share"), [&] { stream.max_late_share = share_setting(section, "max_late_share"); });
  if (section.has("max_staleness"))
    mistakes.read(section.key_of("max_staleness"), [&] {
      stream.max_staleness_us = duration_setting(section, "max_staleness", "largest lag of the table behind its source");
    });
  if (section.has("target_latency"))
    mistakes.read(section.key_of("target_latency"), [&] { stream.target_latency_us = target_latency_setting(section); });
}

// Refuses keys that belong to another kind with a message that says so, then unknown keys.
void allow_keys_of_kind(const TomlSection& section, const std::string& kind, const std::vector<std::string>& allowed,
                        PipelineMistakes& mistakes) {
  std::vector<std::string> told;  // here, not again as unknown keys
  for (const auto& entry : section.entries()) {
    if (std::find(allowed.begin(), allowed.end(), entry.name) != allowed.end()) continue;
    for (const auto& [other_kind, keys] : kKindKeys) {
      if (std::find(keys->begin(), keys->end(), entry.name) == keys->end()) continue;
      std::string list;
      for (const auto& key : allowed) list += (list.empty() ? "" : ", ") + key;
      mistakes.keep(section.key_of(entry.name), [&] {
        section.fail(entry.name, "is a setting of " + std::string(other_kind) + " streams, not of " + kind +
                                     " streams (allowed here: " + list + ")");
      });
      told.push_back(entry.name);
      break;
    }
  }
  section.allow_only(allowed, &mistakes, told);
}

// The keys of a stream's section: those of its kind, or without a known kind those of any kind
// (which settings are wrong for it cannot be told then).
void check_stream_keys(const TomlSection& section, PipelineMistakes& mistakes) {
  std::optional<std::string> kind_written;
  if (section.has("kind")) {
    try {
      kind_written = section.string("kind");
    } catch (const Error&) {
      // Told where kind is read.
    }
  }
  std::vector<std::string> any_kind;
  for (const auto& [kind, keys] : kKindKeys) {
    if (kind_written && *kind_written == kind) return allow_keys_of_kind(section, kind, *keys, mistakes);
    for (const auto& key : *keys)
      if (std::find(any_kind.begin(), any_kind.end(), key) == any_kind.end()) any_kind.push_back(key);
  }
  section.allow_only(any_kind, &mistakes);
}

// A stream's settings each on its own. `declared_sources` are the names under [sources], read
// or not: a source with mistakes of its own is declared still.
Stream read_stream(const TomlSection& section, const std::string& name, const Pipeline& pipeline,
                   const std::vector<std::string>& declared_sources, PipelineMistakes& mistakes) {
  auto read = [&](const char* setting, const std::function<void()>& read_it) {
    return mistakes.read(section.key_of(setting), read_it);
  };
  Stream stream;
  stream.name = name;
  stream.line = section.line();

  // The keys first, so that a misspelled one is known before the setting it meant is read (and
  // not told missing as well).
  check_stream_keys(section, mistakes);
  const std::string kinds = "kinds: ingest (a topic into a table), latest (the newest row per key), "
                            "window (aggregates per event-time window)";
  bool kind_known = read("kind", [&] {
    std::string kind = section.required_string("kind", "set kind = \"ingest\", \"latest\" or \"window\"");
    if (kind == "ingest") stream.kind = StreamKind::Ingest;
    else if (kind == "latest") stream.kind = StreamKind::Latest;
    else if (kind == "window") stream.kind = StreamKind::Window;
    else section.fail("kind", "unknown kind '" + kind + "'; " + kinds + did_you_mean(kind, {"ingest", "latest", "window"}));
  });
  read("table", [&] {
    stream.table = section.required_string("table", "name the table this stream writes, e.g. table = \"bronze_" + name + "\"");
    if (!is_identifier(stream.table)) {
      section.fail("table", "'" + stream.table + "' is not a valid table name; use letters, digits and _ (not starting with a digit)");
    }
  });
  if (!kind_known) return stream;  // which settings belong here depends on the kind
  read_limits(section, stream, mistakes);
  if (section.has("column_mapping")) read("column_mapping", [&] { stream.column_mapping = read_column_mapping(section); });
  if (section.has("iceberg")) read("iceberg", [&] {
    if (auto on = section.boolean("iceberg")) stream.iceberg = *on;
  });
  // Iceberg readers find columns by Parquet field id: the tables need column mapping in id mode.
  if (pipeline.iceberg_for(stream)) {
    if (!stream.column_mapping.empty() && stream.column_mapping != "id")
      read("column_mapping", [&] {
        section.fail("column_mapping", "is \"" + stream.column_mapping + "\", and its tables get Iceberg metadata, whose readers "
                                       "find columns by Parquet field id: write \"id\", or leave it out (id is then the default)");
      });
    else if (stream.column_mapping.empty() && pipeline.column_mapping == "name")
      read(section.has("iceberg") ? "iceberg" : "kind", [&] {
        section.fail(section.has("iceberg") ? "iceberg" : "kind",
                     "its tables get Iceberg metadata, which needs column mapping in id mode, and [lake] column_mapping is "
                     "\"name\"; set column_mapping = \"id\" on this stream");
      });
  }

  if (stream.kind == StreamKind::Ingest) {
    read("source", [&] {
      stream.source = section.required_string("source", "name a declared source, e.g. source = \"orders\" for [sources.orders]");
      if (std::find(declared_sources.begin(), declared_sources.end(), stream.source) == declared_sources.end()) {
        section.fail("source", "source '" + stream.source + "' is not declared" + did_you_mean(stream.source, declared_sources) +
                                   "; declare [sources." + stream.source + "] with its topic and schema");
      }
    });
    read_partitioning(section, stream, pipeline.find_source(stream.source), mistakes);
    return stream;
  }

  read("from", [&] {
    stream.from = section.required_string("from", "name the table this stream reads, written by another stream of this file");
  });
  read("max_files_per_trigger", [&] {
    if (auto cap = section.positive_integer("max_files_per_trigger")) stream.max_files_per_trigger = *cap;
  });
  read("read", [&] {
    auto value = section.string("read");
    if (!value) return;
    bool known = false;
    for (SourceRead read : {SourceRead::Appends, SourceRead::SkipChanges, SourceRead::Changes})
      if (*value == source_read_name(read)) stream.read = read, known = true;
    if (!known)
      section.fail("read", "'" + *value + "' is not a way to read a table; write \"appends\" (its new rows; a version "
                           "that changes rows stops the stream), \"skip_changes\" (its new rows, skipping versions that "
                           "change rows) or \"changes\" (its change data feed)");
  });
  if (stream.kind == StreamKind::Latest) {
    read("key", [&] { stream.key = column_list(section, "key", true, "name the key column(s), e.g. key = [\"order_id\"]"); });
    read("order_by", [&] {
      stream.order_by = section.required_string("order_by", "name the column that orders versions of a row, e.g. \"event_time\"");
    });
    read("entity", [&] {
      if (section.has("entity")) {
        stream.entity = section.required_string("entity", "name what one key is, e.g. \"order\"");
      } else if (stream.key.size() == 1 && stream.key[0].size() > 3 && stream.key[0].ends_with("_id")) {
        stream.entity = stream.key[0].substr(0, stream.key[0].size() - 3);
      } else {
        stream.entity = "row";
      }
    });
    if (section.has("deletes")) {
      read("deletes", [&] {
        stream.deletes = trim(section.required_string("deletes", "write the condition that marks a delete, e.g. "
                                                                 "deletes = \"_op = 'd'\""));
        if (stream.deletes.empty())
          section.fail("deletes", "is empty; write the condition that marks a delete event, e.g. deletes = \"_op = 'd'\"");
        stream.sql_lines["deletes"] = section.line_of("deletes");
      });
    }
    if (section.has("deletes_retention")) read("deletes_retention", [&] { stream.deletes_retention = deletes_retention_setting(section); });
    read("deletion_vectors", [&] {
      if (auto on = section.boolean("deletion_vectors")) stream.deletion_vectors = *on;
      if (stream.deletion_vectors && pipeline.iceberg_for(stream))
        section.fail("deletion_vectors", "is true, and its table gets Iceberg metadata, whose v2 readers would read the rows "
                                         "a deletion vector deletes; leave it out, or set iceberg = false on this stream");
    });
    read("change_data_feed", [&] {
      if (auto on = section.boolean("change_data_feed")) stream.change_data_feed = *on;
    });
    return stream;
  }
  read_window_settings(section, stream, mistakes);
  return stream;
}

}  // namespace

PipelineReading read_pipeline(const std::string& path) {
  std::string text = read_pipeline_text(path);
  toml::table document;
  try {
    document = toml::parse(text, std::string_view(path));
  } catch (const toml::parse_error& e) {
    throw Error(path + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                ": " + std::string(e.description()));
  }

  const TomlSection root(document, path);
  PipelineReading reading{Pipeline{}, PipelineMistakes(path), {}};
  Pipeline& pipeline = reading.pipeline;
  PipelineMistakes& mistakes = reading.mistakes;
  pipeline.path = fs::path(absolute_path(path)).lexically_normal().string();
  pipeline.dir = fs::path(pipeline.path).parent_path().string();
  // Every setting is read on its own and its mistake kept, so that one run shows every mistake
  // of the file; a check that depends on a setting found wrong is passed over (mistakes.read).
  root.allow_only({"kafka", "lake", "service", "sources", "streams"}, &mistakes);
  mistakes.read("kafka", [&] { read_kafka(root, pipeline.kafka, mistakes); });
  mistakes.read("lake", [&] { read_lake(root, pipeline); });
  if (auto service = root.table("service")) {
    service->allow_only({"target_latency"}, &mistakes);
    if (service->has("target_latency"))
      mistakes.read(service->key_of("target_latency"), [&] { pipeline.target_latency_us = target_latency_setting(*service); });
  }

  std::vector<std::string> declared_sources;
  mistakes.read("sources", [&] {
    auto sources = root.table("sources");
    if (!sources) return;
    for (const auto& entry : sources->entries()) {
      declared_sources.push_back(entry.name);
      mistakes.keep(sources->key_of(entry.name), [&] {
        require_identifier(*sources, entry.name, "source");
        if (!entry.value->is_table()) {
          sources->fail(entry.name, "must be a table [sources." + entry.name + "], not " + toml_type_words(*entry.value));
        }
        pipeline.sources.push_back(read_source(*sources->table(entry.name), entry.name, mistakes));
        if (!pipeline.sources.back().is_kinesis()) pipeline.kafka.topics.push_back(pipeline.sources.back().topic);
      });
    }
  });

  std::vector<TomlSection> stream_sections;
  mistakes.read("streams", [&] {
    auto streams = root.table("streams");
    if (!streams || streams->entries().empty()) {
      throw_at(path, streams ? streams->line() : 1, "streams",
               "no stream declared; add e.g. [streams.read_orders] with kind = \"ingest\", source and table");
    }
    for (const auto& entry : streams->entries()) {
      mistakes.keep(streams->key_of(entry.name), [&] {
        require_identifier(*streams, entry.name, "stream");
        if (!entry.value->is_table()) {
          streams->fail(entry.name, "must be a table [streams." + entry.name + "], not " + toml_type_words(*entry.value));
        }
        TomlSection section = *streams->table(entry.name);
        pipeline.streams.push_back(read_stream(section, entry.name, pipeline, declared_sources, mistakes));
        stream_sections.push_back(section);
      });
    }
  });
  reading.unsure_tables = check_stream_graph(pipeline, stream_sections, mistakes);
  if (!mistakes.under("lake") && !mistakes.under("streams"))
    mistakes.keep("lake.table_locations", [&] { check_table_locations(root, pipeline); });
  return reading;
}

Pipeline load_pipeline(const std::string& path) {
  PipelineReading reading = read_pipeline(path);
  reading.mistakes.throw_if_any();
  return std::move(reading.pipeline);
}

}  // namespace lakestream
