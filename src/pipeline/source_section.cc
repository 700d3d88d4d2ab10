#include "pipeline/source_section.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <optional>

#include "pipeline/bronze_layout.h"
#include "pipeline/did_you_mean.h"
#include "pipeline/setting_values.h"
#include "util/civil_date.h"

namespace lakestream {
namespace {

constexpr const char* kTypeList = "bigint, int, double, boolean, string, decimal(p,s), timestamp";

std::string type_hint(const std::string& type_text) {
  static const std::pair<const char*, const char*> kAliases[] = {
      {"integer", "int"},       {"long", "bigint"},      {"float", "double"},      {"real", "double"},
      {"bool", "boolean"},      {"varchar", "string"},   {"text", "string"},       {"timestamptz", "timestamp"},
      {"datetime", "timestamp"}, {"numeric", "decimal(p,s)"}, {"decimal", "decimal(p,s)"},
  };
  std::string word = lower(trim(type_text));
  for (const auto& [alias, type] : kAliases) {
    if (word == alias) return "; did you mean '" + std::string(type) + "'?";
  }
  return did_you_mean(word, {"bigint", "int", "double", "boolean", "string", "timestamp"});
}

// One line of [sources.X.schema]: a field name lakestream can write, and its type.
Field read_field(const TomlSection& schema, const TomlSection::Entry& entry, const Schema& earlier_fields) {
  if (entry.name.empty() || entry.name.find_first_of(" ,;{}()\n\t=") != std::string::npos) {
    schema.fail(entry.name, "field name '" + entry.name +
                                "' cannot be a column name (Parquet and Delta refuse spaces and ,;{}()=)");
  }
  if (is_lineage_column(lower(entry.name))) {
    auto list = [](const std::vector<Field>& added) {
      std::string all;
      for (size_t i = 0; i < added.size(); i++)
        all += (i == 0 ? "" : i + 1 == added.size() ? " and " : ", ") + added[i].name;
      return all;
    };
    Source kinesis;
    kinesis.kinesis.stream = "-";
    schema.fail(entry.name, "field name '" + entry.name + "' collides with the column ingest adds (" + lower(entry.name) +
                                "); after the event's fields the bronze table holds " + list(lineage_columns(Source{})) +
                                " (of a Kinesis source " + list(lineage_columns(kinesis)) + "); rename the field");
  }
  for (const auto& earlier : earlier_fields.fields) {
    if (lower(earlier.name) == lower(entry.name)) {
      schema.fail(entry.name, "field '" + entry.name + "' differs from field '" + earlier.name +
                                  "' only in case; SQL column names ignore case, so rename one");
    }
  }
  if (!entry.value->is_string()) {
    schema.fail(entry.name, "the type must be a string like \"bigint\", not " + toml_type_words(*entry.value) +
                                "; types: " + kTypeList);
  }
  const std::string& type_text = entry.value->as_string()->get();
  auto field = parse_field_type(entry.name, type_text);
  if (!field) {
    if (lower(trim(type_text)).starts_with("decimal(")) {
      schema.fail(entry.name, "'" + type_text + "' is not a valid decimal; write decimal(p,s) with precision p "
                              "from 1 to 38 and scale s from 0 to p, e.g. decimal(18,2)");
    }
    schema.fail(entry.name, "unknown type '" + type_text + "'; types: " + kTypeList + type_hint(type_text));
  }
  return *field;
}

// Each field on its own: a field whose line is wrong is kept still, as a string, so that what
// names it elsewhere is not told as a second mistake (the stream graph treats it as untyped).
Schema read_schema(const TomlSection& schema, PipelineMistakes& mistakes) {
  Schema result;
  for (const auto& entry : schema.entries()) {
    if (mistakes.keep(schema.key_of(entry.name), [&] { result.fields.push_back(read_field(schema, entry, result)); }))
      continue;
    Field untyped;
    untyped.name = entry.name;
    untyped.type = FieldType::String;
    result.fields.push_back(untyped);
  }
  if (result.fields.empty()) schema.fail_here("declares no field; add one line per event field, e.g. order_id = \"bigint\"");
  return result;
}

bool is_valid_topic_name(const std::string& topic) {
  // Kafka's own rule: at most 249 of [a-zA-Z0-9._-], and not "." or "..".
  if (topic.empty() || topic.size() > 249 || topic == "." || topic == "..") return false;
  return std::all_of(topic.begin(), topic.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// `column` must be a field of `schema`; else an error at `setting`.
void require_field(const TomlSection& section, const std::string& setting, const Schema& schema,
                   const std::string& column) {
  if (schema.find(column)) return;
  std::vector<std::string> names;
  std::string list;
  for (const auto& field : schema.fields) {
    names.push_back(field.name);
    list += (list.empty() ? "" : ", ") + field.name;
  }
  section.fail(setting, "field '" + column + "' is not in the schema" + did_you_mean(column, names) + " (fields: " + list + ")");
}

// Kinesis's stream names: 1 to 128 letters, digits, '_', '.' and '-'.
bool is_valid_kinesis_stream_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

// Milliseconds since the epoch of "YYYY-MM-DDTHH:MM:SS[.fff](Z|+HH:MM|-HH:MM)" (a space may stand
// for the T); none when `text` is not such a time.
std::optional<int64_t> parse_instant_ms(const std::string& text) {
  int y, mo, d, h, mi, sec, used = 0;
  char t;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &t, &h, &mi, &sec, &used) != 7 ||
      (t != 'T' && t != ' ') || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
    return std::nullopt;
  std::string rest = text.substr(static_cast<size_t>(used));
  int64_t ms = 0;
  if (!rest.empty() && rest[0] == '.') {
    size_t digits = 1;
    int64_t scale = 100;
    while (digits < rest.size() && std::isdigit(static_cast<unsigned char>(rest[digits]))) {
      ms += (rest[digits] - '0') * scale;
      scale /= 10;
      digits++;
    }
    if (digits == 1) return std::nullopt;
    rest = rest.substr(digits);
  }
  int64_t offset_minutes = 0;
  if (rest == "Z" || rest == "z") {
  } else if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && rest[3] == ':' &&
             std::isdigit(static_cast<unsigned char>(rest[1])) && std::isdigit(static_cast<unsigned char>(rest[2])) &&
             std::isdigit(static_cast<unsigned char>(rest[4])) && std::isdigit(static_cast<unsigned char>(rest[5]))) {
    offset_minutes = ((rest[1] - '0') * 10 + (rest[2] - '0')) * 60 + (rest[4] - '0') * 10 + (rest[5] - '0');
    if (rest[0] == '-') offset_minutes = -offset_minutes;
  } else {
    return std::nullopt;
  }
  int64_t seconds = days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + sec;
  return (seconds - offset_minutes * 60) * 1000 + ms;
}

// kinesis = "NAME" and the settings of a Kinesis source; the Kafka-only settings are refused
// with the Kinesis one that takes their place.
void read_kinesis_settings(const TomlSection& section, Source& source, PipelineMistakes& mistakes) {
  auto read = [&](const char* setting, const std::function<void()>& read_it) { mistakes.read(section.key_of(setting), read_it); };
  read("kinesis", [&] {
    source.kinesis.stream = section.required_string("kinesis", "name the Kinesis data stream, e.g. kinesis = \"orders\"");
    if (!is_valid_kinesis_stream_name(source.kinesis.stream))
      section.fail("kinesis", "'" + source.kinesis.stream + "' is not a valid Kinesis stream name; use 1 to 128 letters, "
                              "digits, '.', '_' and '-'");
  });
  const std::pair<const char*, const char*> kafka_only[] = {
      {"topic", "a Kinesis source reads the stream `kinesis` names; leave topic out"},
      {"starting_offsets", "write starting_position = \"trim_horizon\", \"latest\" or a time for a Kinesis source"},
      {"max_offsets_per_trigger", "write max_records_per_trigger for a Kinesis source"},
      {"group", "ingest workers share a Kafka consumer group; a Kinesis source is read by one stream"}};
  for (const auto& [name, instead] : kafka_only)
    if (section.has(name)) mistakes.keep(section.key_of(name), [&] { section.fail(name, std::string("is for Kafka sources; ") + instead); });
  read("region", [&] { source.kinesis.region = section.string("region").value_or(""); });
  read("endpoint", [&] {
    source.kinesis.endpoint = section.string("endpoint").value_or("");
    if (!source.kinesis.endpoint.empty() && source.kinesis.endpoint.rfind("http://", 0) != 0 &&
        source.kinesis.endpoint.rfind("https://", 0) != 0)
      section.fail("endpoint", "'" + source.kinesis.endpoint + "' is not a URL; write e.g. \"https://kinesis.eu-west-1.amazonaws.com\" "
                               "or an emulator's \"http://127.0.0.1:4567\"");
    while (!source.kinesis.endpoint.empty() && source.kinesis.endpoint.back() == '/') source.kinesis.endpoint.pop_back();
  });
  read("starting_position", [&] {
    auto starting = section.string("starting_position");
    if (!starting) return;
    source.kinesis.start_text = *starting;
    if (*starting == "trim_horizon") {
      source.kinesis.start = KinesisSettings::Start::TrimHorizon;
    } else if (*starting == "latest") {
      source.kinesis.start = KinesisSettings::Start::Latest;
    } else if (auto ms = parse_instant_ms(*starting)) {
      source.kinesis.start = KinesisSettings::Start::AtTimestamp;
      source.kinesis.start_timestamp_ms = *ms;
    } else {
      section.fail("starting_position", "'" + *starting + "' is not allowed; write \"trim_horizon\" (all the stream "
                                        "holds), \"latest\" (what arrives from the first run on) or a time such as "
                                        "\"2026-03-02T09:00:00Z\" (what arrived from then on)");
    }
  });
  read("max_records_per_trigger", [&] {
    if (auto cap = section.positive_integer("max_records_per_trigger")) source.max_offsets_per_trigger = *cap;
  });
}

// The settings of every source, whatever its format, each on its own.
void read_shared_source_settings(const TomlSection& section, Source& source, PipelineMistakes& mistakes) {
  auto read = [&](const char* setting, const std::function<void()>& read_it) { mistakes.read(section.key_of(setting), read_it); };
  if (section.has("kinesis")) {
    read_kinesis_settings(section, source, mistakes);
  } else {
    for (const char* name : {"region", "endpoint", "starting_position", "max_records_per_trigger"})
      if (section.has(name))
        mistakes.keep(section.key_of(name), [&] {
          section.fail(name, "is for Kinesis sources (kinesis = \"STREAM\"); a Kafka source takes its brokers from [kafka]");
        });
  }
  // A Kinesis source's "topic" is its stream's name, for messages and the schema registry's
  // subject (<name>-value).
  source.topic = source.is_kinesis() ? source.kinesis.stream : source.name;
  if (!source.is_kinesis()) {  // a Kafka topic's own settings
    read("topic", [&] {
      source.topic = section.string("topic").value_or(source.name);
      if (!is_valid_topic_name(source.topic)) {
        section.fail("topic", "'" + source.topic + "' is not a valid Kafka topic name; use up to 249 letters, digits, '.', '_' and '-'");
      }
    });
    read("starting_offsets", [&] {
      if (auto starting = section.string("starting_offsets")) {
        if (*starting != "earliest" && *starting != "latest") {
          section.fail("starting_offsets", "'" + *starting + "' is not allowed; write \"earliest\" (all the topic holds) "
                                            "or \"latest\" (only what arrives from now on)");
        }
        source.start_at_latest = *starting == "latest";
      }
    });
    read("max_offsets_per_trigger", [&] {
      if (auto cap = section.positive_integer("max_offsets_per_trigger")) source.max_offsets_per_trigger = *cap;
    });
  }
  read("max_value_bytes", [&] {
    if (auto cap = section.positive_integer("max_value_bytes")) source.max_value_bytes = *cap;
  });
  read("fail_on_data_loss", [&] { source.fail_on_data_loss = section.boolean("fail_on_data_loss").value_or(true); });
  if (section.has("group") && !source.is_kinesis()) read("group", [&] { source.group = read_group_name(section); });
  if (section.has("sent_twice_by")) {
    read("sent_twice_by", [&] {
      source.sent_twice_by = section.required_string("sent_twice_by", "name who sends events twice, e.g. \"the shop's system\"");
    });
  }
}

// format = "avro": the registry and its client settings; the columns come from the registry.
void read_schema_registry(const TomlSection& section, Source& source, PipelineMistakes& mistakes) {
  source.format = SourceFormat::Avro;
  for (const char* json_only : {"schema", "required", "key"})
    if (section.has(json_only))
      mistakes.keep(section.key_of(json_only), [&] {
        section.fail(json_only, "is for JSON sources; an Avro source's fields are those of its writer schemas in the "
                                "schema registry");
      });
  mistakes.read(section.key_of("schema_registry"), [&] {
    source.schema_registry.url = expanded(
        section, "schema_registry",
        section.required_string("schema_registry", "set the schema registry of the Avro schemas, e.g. "
                                                   "schema_registry = \"http://registry:8081\" (or \"embedded\")"));
  });
  mistakes.read(section.key_of("schema_registry_properties"), [&] {
    if (auto properties = section.table("schema_registry_properties")) {
      static const std::vector<std::string> known = {"basic.auth.user.info", "ssl.ca.location", "ssl.certificate.location",
                                                     "ssl.key.location", "ssl.key.password"};
      properties->allow_only(known, &mistakes);
      for (const auto& entry : properties->entries()) {
        mistakes.keep(properties->key_of(entry.name), [&] {
          if (!entry.value->is_string())
            properties->fail(entry.name, "must be a string, not " + toml_type_words(*entry.value));
          source.schema_registry.properties.emplace_back(
              entry.name, expanded(*properties, entry.name, entry.value->as_string()->get()));
        });
      }
    }
  });
  read_shared_source_settings(section, source, mistakes);
}

// envelope = "debezium": each value is a change event; the schema (JSON) or the writer schema's
// after record (Avro) declares its row.
void read_envelope(const TomlSection& section, Source& source) {
  auto envelope = section.string("envelope");
  if (!envelope || *envelope == "none") return;
  if (*envelope != "debezium")
    section.fail("envelope", "'" + *envelope + "' is not an envelope; write \"debezium\" (Debezium's change events: "
                             "op, before, after, source) or leave it out (each value is the event)");
  source.envelope = SourceEnvelope::Debezium;
}

// The bronze columns of a change event after the row's fields: its op and its source position.
void add_change_event_fields(const TomlSection& section, Schema& schema) {
  const std::pair<const char*, FieldType> added[] = {
      {kDebeziumOpColumn, FieldType::String}, {kDebeziumTsColumn, FieldType::BigInt}, {kDebeziumLsnColumn, FieldType::BigInt}};
  for (const auto& [name, type] : added) {
    if (schema.find(name))
      section.fail("schema", "field '" + std::string(name) + "' is a column envelope = \"debezium\" adds (_op, "
                             "_source_ts_ms, _source_lsn); declare the row's own fields only");
    Field field;
    field.name = name;
    field.type = type;
    schema.fields.push_back(field);
  }
}

}  // namespace

Source read_source(const TomlSection& section, const std::string& name, PipelineMistakes& mistakes) {
  auto read = [&](const char* setting, const std::function<void()>& read_it) {
    return mistakes.read(section.key_of(setting), read_it);
  };
  section.allow_only({"topic", "key", "starting_offsets", "max_offsets_per_trigger", "max_value_bytes",
                      "sent_twice_by", "required", "fail_on_data_loss", "group", "schema", "format", "schema_registry",
                      "schema_registry_properties", "envelope", "kinesis", "region", "endpoint", "starting_position",
                      "max_records_per_trigger"},
                     &mistakes);
  Source source;
  source.name = name;
  source.line = section.line();
  read("envelope", [&] { read_envelope(section, source); });
  std::string format = "json";
  bool format_known = read("format", [&] {
    format = section.string("format").value_or("json");
    if (format != "json" && format != "avro")
      section.fail("format", "'" + format + "' is not a format; write \"json\" (JSON text) or \"avro\" (Avro in "
                             "Confluent's wire format, with schema_registry)");
  });
  if (!format_known) {  // which other settings belong here depends on the format
    read_shared_source_settings(section, source, mistakes);
    return source;
  }
  if (format == "avro") {
    read_schema_registry(section, source, mistakes);
    return source;
  }
  for (const char* avro_only : {"schema_registry", "schema_registry_properties"})
    if (section.has(avro_only))
      mistakes.keep(section.key_of(avro_only), [&] {
        section.fail(avro_only, "is for format = \"avro\"; a JSON source declares its fields in [" + section.key() +
                                    ".schema]");
      });
  bool schema_read = read("schema", [&] {
    source.schema = read_schema(section.required_table("schema", "declare the event's fields in [" + section.key() +
                                                                     ".schema], e.g. order_id = \"bigint\""),
                                mistakes);
  });
  if (schema_read) {
    read("key", [&] {
      if (auto key = section.string("key")) {
        require_field(section, "key", source.schema, *key);
        source.key_field = *key;
      }
    });
    read("required", [&] {
      for (const auto& column : section.string_list("required").value_or(std::vector<std::string>{})) {
        require_field(section, "required", source.schema, column);
        for (auto& field : source.schema.fields) {
          if (field.name == column) field.required = true;
        }
      }
    });
  }
  read_shared_source_settings(section, source, mistakes);
  // The change's columns follow the row's fields, whichever of those are wrong.
  if (source.envelope == SourceEnvelope::Debezium && schema_read)
    mistakes.keep(section.key_of("schema"), [&] { add_change_event_fields(section, source.schema); });
  return source;
}

}  // namespace lakestream
