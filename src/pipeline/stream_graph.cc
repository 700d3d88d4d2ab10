// Cross-stream validation of a pipeline file. Columns are tracked table by table in dependency
// order, so that "order_by = 'event_tme'" is caught when the file is read, not mid-run.
#include "pipeline/stream_graph.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>

#include "pipeline/bronze_layout.h"
#include "pipeline/change_columns.h"
#include "pipeline/did_you_mean.h"

namespace lakestream {
namespace {

// A column of a table the pipeline writes; the type is unknown for aggregates (SQL decides it).
struct Column {
  std::string name;
  std::optional<Field> field;
};
using Columns = std::vector<Column>;

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::vector<std::string> names_of(const Columns& columns) {
  std::vector<std::string> names;
  for (const auto& column : columns) names.push_back(column.name);
  return names;
}

Field typed(const std::string& name, FieldType type) {
  Field field;
  field.name = name;
  field.type = type;
  return field;
}

// Stands for the columns of an Avro source's table, which its writer schemas decide when the
// stream runs: any name is taken here, untyped.
constexpr const char* kWriterSchemaFields = "(the writer schema's fields)";

// What an ingest table holds: the event's fields, then where Kafka kept the record and which
// micro-batch wrote it (docs/pipeline-file.md lists them for users).
Columns ingest_columns(const Source& source, const Stream& stream) {
  Columns columns;
  if (source.format == SourceFormat::Avro) columns.push_back({kWriterSchemaFields, std::nullopt});
  for (const auto& field : source.schema.fields) columns.push_back({field.name, field});
  for (const auto& added : lineage_columns(source)) columns.push_back({added.name, added});
  for (const auto& [name, expression] : stream.derived) columns.push_back({name, std::nullopt});  // typed by DuckDB
  return columns;
}

const Column* find_column(const Columns& columns, const std::string& name) {
  const Column* any = nullptr;
  for (const auto& column : columns) {
    if (column.name == name) return &column;
    if (column.name == kWriterSchemaFields) any = &column;
  }
  return any;
}

// What the checks below share: the streams, where each is declared, and the mistakes found so far.
class StreamGraph {
 public:
  StreamGraph(const Pipeline& pipeline, const std::vector<TomlSection>& sections, PipelineMistakes& mistakes)
      : pipeline_(pipeline), sections_(sections), mistakes_(mistakes) {}

  std::set<std::string> check() {
    check_unique_writers();
    check_inputs_exist();
    check_no_cycle();
    check_change_feeds_read();
    std::map<std::string, std::optional<Columns>> table_columns;  // nullopt: unknown, after a mistake
    std::set<std::string> unsure;
    for (const Stream* stream : pipeline_.in_dependency_order()) {
      size_t index = static_cast<size_t>(stream - pipeline_.streams.data());
      std::optional<Columns> columns = check_columns(index, table_columns);
      if (!columns || mistyped_.count(stream->table) || (reads_a_table(index) && unsure.count(stream->from)))
        unsure.insert(stream->table);
      table_columns[stream->table] = std::move(columns);
    }
    return unsure;
  }

 private:
  // True when `setting` of stream `i` holds a mistake already: what depends on it is not checked.
  bool wrong(size_t i, const std::string& setting) const { return mistakes_.under(sections_[i].key_of(setting)); }
  bool kind_known(size_t i) const { return !wrong(i, "kind"); }
  void keep(size_t i, const std::string& setting, const std::function<void()>& check) {
    mistakes_.keep(sections_[i].key_of(setting), check);
  }

  void check_unique_writers() {
    std::map<std::string, size_t> writer_index;
    for (size_t i = 0; i < pipeline_.streams.size(); ++i) {
      const Stream& stream = pipeline_.streams[i];
      if (stream.table.empty()) continue;
      std::vector<std::string> tables{stream.table};
      if (kind_known(i) && stream.kind == StreamKind::Ingest) tables.push_back(stream.table + "_quarantine");
      if (!stream.deleted_table().empty()) tables.push_back(stream.deleted_table());
      for (const auto& table : tables) {
        auto [it, inserted] = writer_index.emplace(table, i);
        if (inserted) continue;
        const Stream& first = pipeline_.streams[it->second];
        std::string what = table == stream.table                  ? "table " + table
                           : table == stream.deleted_table() ? "its deleted table " + table
                                                             : "its quarantine table " + table;
        keep(i, "table", [&] {
          sections_[i].fail("table", what + " is already written by stream " + first.name + " (line " +
                                         std::to_string(first.line) + "); each table has one writer, so choose another table name");
        });
      }
    }
  }

  // A stream whose `from` can be followed: its kind and its from read well.
  bool reads_a_table(size_t i) const {
    const Stream& stream = pipeline_.streams[i];
    return kind_known(i) && stream.kind != StreamKind::Ingest && !stream.from.empty() && !wrong(i, "from");
  }

  void check_inputs_exist() {
    std::vector<std::string> tables;
    for (const auto& stream : pipeline_.streams) {
      if (stream.table.empty()) return;  // a table name is wrong: any `from` may have meant it
      tables.push_back(stream.table);
    }
    for (size_t i = 0; i < pipeline_.streams.size(); ++i) {
      const Stream& stream = pipeline_.streams[i];
      if (!reads_a_table(i) || pipeline_.writer_of(stream.from)) continue;
      keep(i, "from", [&] {
        sections_[i].fail("from", "no stream of this file writes table '" + stream.from + "'" +
                                      did_you_mean(stream.from, tables) + " (tables written: " + joined(tables) + ")");
      });
    }
  }

  // The stream that writes what stream `i` reads, when both are known.
  const Stream* input_writer(size_t i) const { return reads_a_table(i) ? pipeline_.writer_of(pipeline_.streams[i].from) : nullptr; }
  size_t index_of(const Stream* stream) const { return static_cast<size_t>(stream - pipeline_.streams.data()); }

  void check_no_cycle() {
    // Each stream reads at most one table, so following `from` from a stream either ends at an
    // ingest stream (or at a mistake) or comes back around.
    for (size_t i = 0; i < pipeline_.streams.size(); ++i) {
      const Stream* start = &pipeline_.streams[i];
      std::vector<const Stream*> path{start};
      const Stream* writer = input_writer(i);
      while (writer) {
        if (writer == start) {
          std::string chain;
          for (const Stream* s : path) {
            chain += (chain.empty() ? "" : ", ") + s->name + " reads " + s->from + " (written by " +
                     pipeline_.writer_of(s->from)->name + ")";
          }
          keep(i, "from", [&] {
            sections_[i].fail("from", "dependency cycle: " + chain +
                                          "; a stream cannot read its own output, directly or through other streams");
          });
          break;
        }
        if (std::find(path.begin(), path.end(), writer) != path.end()) break;  // a cycle not through start
        path.push_back(writer);
        writer = input_writer(index_of(writer));
      }
    }
  }

  // A stream that reads a table's change data feed needs the table's writer to write one.
  void check_change_feeds_read() {
    for (size_t i = 0; i < pipeline_.streams.size(); ++i) {
      const Stream& stream = pipeline_.streams[i];
      const Stream* writer = input_writer(i);
      if (stream.read != SourceRead::Changes || !writer || writer->change_data_feed || wrong(i, "read")) continue;
      keep(i, "read", [&] {
        if (writer->kind == StreamKind::Ingest)
          sections_[i].fail("read", "\"changes\" reads a change data feed, and " + stream.from + " (written by ingest stream " +
                                        writer->name + ") only ever appends: read = \"appends\" reads every row it gets");
        sections_[i].fail("read", "\"changes\" reads " + stream.from + "'s change data feed, which its stream " + writer->name +
                                      " (line " + std::to_string(writer->line) + ") does not write; set change_data_feed = true there");
      });
    }
  }

  // The source's columns, or nullopt when a mistake in the source leaves them unknown.
  std::optional<Columns> source_columns(const Source& source, const Stream& stream) const {
    std::string key = dotted_key("sources", source.name);
    std::string schema_key = dotted_key(key, "schema");
    if (mistakes_.under(dotted_key(key, "format")) || mistakes_.under(dotted_key(key, "envelope")) ||
        (mistakes_.under(schema_key) && source.schema.fields.empty()))
      return std::nullopt;
    Columns columns = ingest_columns(source, stream);
    for (auto& column : columns)  // a field whose type is wrong is a column still, of no known type
      if (mistakes_.under(dotted_key(schema_key, column.name))) column.field.reset();
    return columns;
  }

  // The stream's table columns, after checking the columns it names exist in what it reads;
  // nullopt when they are not known.
  std::optional<Columns> check_columns(size_t i, const std::map<std::string, std::optional<Columns>>& table_columns) {
    const Stream& stream = pipeline_.streams[i];
    const TomlSection& section = sections_[i];
    if (!kind_known(i)) return std::nullopt;
    if (stream.kind == StreamKind::Ingest) {
      const Source* source = pipeline_.find_source(stream.source);
      if (!source || wrong(i, "source")) return std::nullopt;
      std::optional<Columns> columns = source_columns(*source, stream);
      if (!columns || wrong(i, "derived")) return std::nullopt;
      if (mistakes_.under(dotted_key(dotted_key("sources", source->name), "schema"))) mistyped_.insert(stream.table);
      if (wrong(i, "partition_by")) return columns;
      for (const auto& column : stream.partition_by) {
        keep(i, "partition_by", [&] {
          const Column* found = find_column(*columns, column);
          if (!found)
            section.fail("partition_by", "column '" + column + "' is not in table " + stream.table +
                                             did_you_mean(column, names_of(*columns)) + " (its columns: " +
                                             joined(names_of(*columns)) + "); to partition by a computed value, declare it "
                                             "under [" + section.key() + ".derived], e.g. dt = \"date(event_time)\"");
          if (found->field && found->field->type == FieldType::Double)
            section.fail("partition_by", "column '" + column + "' is a double; partition by a string, integer, date or "
                                             "timestamp (a double makes one folder per distinct value)");
        });
      }
      return columns;
    }

    if (!reads_a_table(i)) return std::nullopt;
    auto input_it = table_columns.find(stream.from);
    if (input_it == table_columns.end() || !input_it->second) return std::nullopt;
    Columns input = *input_it->second;
    if (stream.read == SourceRead::Changes && !wrong(i, "read")) {
      for (const auto& added : change_columns()) {
        if (const Column* clash = find_column(input, added.name); clash && clash->name == added.name) {
          keep(i, "read", [&] {
            section.fail("read", "\"changes\" adds the column " + added.name + " to each row, and " + stream.from +
                                     " has a column of that name already; rename that column where it is declared");
          });
          return std::nullopt;
        }
        input.push_back({added.name, added});
      }
    }
    // The column named at `setting`, or nullopt (the mistake kept) when `input` has none such.
    auto require = [&](const char* setting, const std::string& column) -> std::optional<Column> {
      const Column* found = find_column(input, column);
      if (!found) {
        keep(i, setting, [&] {
          section.fail(setting, "column '" + column + "' is not in table " + stream.from +
                                    did_you_mean(column, names_of(input)) + " (its columns: " + joined(names_of(input)) + ")");
        });
        return std::nullopt;
      }
      return *found;
    };

    if (stream.kind == StreamKind::Latest) {
      if (!wrong(i, "key"))
        for (const auto& key : stream.key) require("key", key);
      if (!wrong(i, "order_by")) {
        std::optional<Column> order = require("order_by", stream.order_by);
        if (order && stream.max_staleness_us > 0 && order->field && order->field->type != FieldType::Timestamp)
          keep(i, "max_staleness", [&] {
            section.fail("max_staleness", "needs a timestamp order_by; column '" + stream.order_by + "' of " +
                                              stream.from + " is " + order->field->type_text() +
                                              ", so its lag cannot be measured in time");
          });
      }
      return input;  // the newest row of each key, as it came
    }

    if (!wrong(i, "event_time")) {
      std::optional<Column> event_time = require("event_time", stream.event_time);
      if (event_time && event_time->field && event_time->field->type != FieldType::Timestamp) {
        keep(i, "event_time", [&] {
          section.fail("event_time", "column '" + stream.event_time + "' of " + stream.from + " is " +
                                         event_time->field->type_text() +
                                         ", not a timestamp; name a timestamp column (declared \"timestamp\" in the "
                                         "source's schema)");
        });
      }
    }
    if (!wrong(i, "dedup"))
      for (const auto& column : stream.dedup) require("dedup", column);
    if (wrong(i, "window_column") || wrong(i, "group_by") || wrong(i, "aggregates")) return std::nullopt;
    Columns output{{stream.window_column, typed(stream.window_column, FieldType::Timestamp)}};
    for (const auto& column : stream.group_by)
      output.push_back(require("group_by", column).value_or(Column{column, std::nullopt}));
    for (const auto& aggregate : stream.aggregates) output.push_back({aggregate.name, std::nullopt});
    return output;
  }

  const Pipeline& pipeline_;
  const std::vector<TomlSection>& sections_;
  PipelineMistakes& mistakes_;
  std::set<std::string> mistyped_;  // ingest tables with a field whose type is wrong
};

}  // namespace

std::set<std::string> check_stream_graph(const Pipeline& pipeline, const std::vector<TomlSection>& sections,
                                         PipelineMistakes& mistakes) {
  return StreamGraph(pipeline, sections, mistakes).check();
}

}  // namespace lakestream
