#include "pipeline/bronze_layout.h"

namespace lakestream {

namespace {

Field column(const char* name, FieldType type) {
  Field field;
  field.name = name;
  field.type = type;
  return field;
}

const std::vector<Field>& kinesis_columns() {
  static const std::vector<Field> columns{
      column("partition", FieldType::Int), column("offset", FieldType::BigInt),
      column("kinesis_arrival_timestamp", FieldType::Timestamp), column("key", FieldType::String),
      column("kinesis_shard_id", FieldType::String), column("kinesis_sequence_number", FieldType::String)};
  return columns;
}

}  // namespace

const std::vector<Field>& kafka_columns() {
  static const std::vector<Field> columns{column("partition", FieldType::Int), column("offset", FieldType::BigInt),
                                          column("kafka_timestamp", FieldType::Timestamp),
                                          column("key", FieldType::String)};
  return columns;
}

const std::vector<Field>& source_columns(const Source& source) {
  return source.is_kinesis() ? kinesis_columns() : kafka_columns();
}

const std::vector<std::string>& arrival_columns() {
  static const std::vector<std::string> names{"kafka_timestamp", "kinesis_arrival_timestamp"};
  return names;
}

const std::vector<Field>& batch_columns() {
  static const std::vector<Field> columns{column("_batch_id", FieldType::BigInt),
                                          column("_ingested_at", FieldType::Timestamp)};
  return columns;
}

std::vector<Field> lineage_columns(const Source& source) {
  std::vector<Field> all = source_columns(source);
  all.insert(all.end(), batch_columns().begin(), batch_columns().end());
  return all;
}

bool is_lineage_column(const std::string& name) {
  for (const auto* columns : {&kafka_columns(), &kinesis_columns(), &batch_columns()})
    for (const auto& c : *columns)
      if (c.name == name) return true;
  return false;
}

}  // namespace lakestream
