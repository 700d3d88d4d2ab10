// Cross-stream validation of a pipeline file. Columns are tracked table by table in dependency
// order, so that "order_by = 'event_tme'" is caught when the file is read, not mid-run.
#include "pipeline/stream_graph.h"

#include <algorithm>
#include <map>

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
  columns.push_back({"partition", typed("partition", FieldType::Int)});
  columns.push_back({"offset", typed("offset", FieldType::BigInt)});
  columns.push_back({"kafka_timestamp", typed("kafka_timestamp", FieldType::Timestamp)});
  columns.push_back({"key", typed("key", FieldType::String)});
  columns.push_back({"_batch_id", typed("_batch_id", FieldType::BigInt)});
  columns.push_back({"_ingested_at", typed("_ingested_at", FieldType::Timestamp)});
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

void check_unique_writers(const Pipeline& pipeline, const std::vector<TomlSection>& sections) {
  std::map<std::string, size_t> writer_index;
  for (size_t i = 0; i < pipeline.streams.size(); ++i) {
    const Stream& stream = pipeline.streams[i];
    std::vector<std::string> tables{stream.table};
    if (stream.kind == StreamKind::Ingest) tables.push_back(stream.table + "_quarantine");
    if (!stream.deleted_table().empty()) tables.push_back(stream.deleted_table());
    for (const auto& table : tables) {
      auto [it, inserted] = writer_index.emplace(table, i);
      if (inserted) continue;
      const Stream& first = pipeline.streams[it->second];
      std::string what = table == stream.table                  ? "table " + table
                         : table == stream.deleted_table() ? "its deleted table " + table
                                                           : "its quarantine table " + table;
      sections[i].fail("table", what + " is already written by stream " + first.name + " (line " +
                                    std::to_string(first.line) + "); each table has one writer, so choose another table name");
    }
  }
}

void check_inputs_exist(const Pipeline& pipeline, const std::vector<TomlSection>& sections) {
  std::vector<std::string> tables;
  for (const auto& stream : pipeline.streams) tables.push_back(stream.table);
  for (size_t i = 0; i < pipeline.streams.size(); ++i) {
    const Stream& stream = pipeline.streams[i];
    if (stream.kind == StreamKind::Ingest || pipeline.writer_of(stream.from)) continue;
    sections[i].fail("from", "no stream of this file writes table '" + stream.from + "'" + did_you_mean(stream.from, tables) +
                                 " (tables written: " + joined(tables) + ")");
  }
}

void check_no_cycle(const Pipeline& pipeline, const std::vector<TomlSection>& sections) {
  // Each stream reads at most one table, so following `from` from a stream either ends at an
  // ingest stream or comes back around.
  for (size_t i = 0; i < pipeline.streams.size(); ++i) {
    const Stream* start = &pipeline.streams[i];
    std::vector<const Stream*> path{start};
    const Stream* current = start;
    while (current->kind != StreamKind::Ingest) {
      const Stream* writer = pipeline.writer_of(current->from);
      if (writer == start) {
        std::string chain;
        for (const Stream* s : path) {
          chain += (chain.empty() ? "" : ", ") + s->name + " reads " + s->from + " (written by " +
                   pipeline.writer_of(s->from)->name + ")";
        }
        sections[i].fail("from", "dependency cycle: " + chain +
                                     "; a stream cannot read its own output, directly or through other streams");
      }
      if (std::find(path.begin(), path.end(), writer) != path.end()) break;  // a cycle not through start
      path.push_back(writer);
      current = writer;
    }
  }
}

// The stream's table columns, after checking the columns it names exist in what it reads.
Columns check_columns(const Pipeline& pipeline, const Stream& stream, const TomlSection& section,
                      const std::map<std::string, Columns>& table_columns) {
  if (stream.kind == StreamKind::Ingest) {
    Columns columns = ingest_columns(*pipeline.find_source(stream.source), stream);
    for (const auto& column : stream.partition_by) {
      const Column* found = find_column(columns, column);
      if (!found)
        section.fail("partition_by", "column '" + column + "' is not in table " + stream.table +
                                         did_you_mean(column, names_of(columns)) + " (its columns: " +
                                         joined(names_of(columns)) + "); to partition by a computed value, declare it "
                                         "under [" + section.key() + ".derived], e.g. dt = \"date(event_time)\"");
      if (found->field && found->field->type == FieldType::Double)
        section.fail("partition_by", "column '" + column + "' is a double; partition by a string, integer, date or "
                                         "timestamp (a double makes one folder per distinct value)");
    }
    return columns;
  }

  const Columns& input = table_columns.at(stream.from);
  auto require = [&](const char* setting, const std::string& column) -> const Column& {
    const Column* found = find_column(input, column);
    if (!found) {
      section.fail(setting, "column '" + column + "' is not in table " + stream.from +
                                did_you_mean(column, names_of(input)) + " (its columns: " + joined(names_of(input)) + ")");
    }
    return *found;
  };

  if (stream.kind == StreamKind::Latest) {
    for (const auto& key : stream.key) require("key", key);
    const Column& order = require("order_by", stream.order_by);
    if (stream.max_staleness_us > 0 && order.field && order.field->type != FieldType::Timestamp)
      section.fail("max_staleness", "needs a timestamp order_by; column '" + stream.order_by + "' of " + stream.from +
                                        " is " + order.field->type_text() + ", so its lag cannot be measured in time");
    return input;  // the newest row of each key, as it came
  }

  const Column& event_time = require("event_time", stream.event_time);
  if (event_time.field && event_time.field->type != FieldType::Timestamp) {
    section.fail("event_time", "column '" + stream.event_time + "' of " + stream.from + " is " +
                                   event_time.field->type_text() +
                                   ", not a timestamp; name a timestamp column (declared \"timestamp\" in the source's schema)");
  }
  for (const auto& column : stream.dedup) require("dedup", column);
  Columns output{{stream.window_column, typed(stream.window_column, FieldType::Timestamp)}};
  for (const auto& column : stream.group_by) output.push_back(require("group_by", column));
  for (const auto& aggregate : stream.aggregates) output.push_back({aggregate.name, std::nullopt});
  return output;
}

}  // namespace

void check_stream_graph(const Pipeline& pipeline, const std::vector<TomlSection>& sections) {
  check_unique_writers(pipeline, sections);
  check_inputs_exist(pipeline, sections);
  check_no_cycle(pipeline, sections);

  std::map<std::string, Columns> table_columns;
  for (const Stream* stream : pipeline.in_dependency_order()) {
    size_t index = static_cast<size_t>(stream - pipeline.streams.data());
    table_columns[stream->table] = check_columns(pipeline, *stream, sections[index], table_columns);
  }
}

}  // namespace lakestream
