#include "pipeline/bronze_layout.h"

namespace lakestream {

namespace {

Field column(const char* name, FieldType type) {
  Field field;
  field.name = name;
  field.type = type;
  return field;
}

}  // namespace

const std::vector<Field>& kafka_columns() {
  static const std::vector<Field> columns{column("partition", FieldType::Int), column("offset", FieldType::BigInt),
                                          column("kafka_timestamp", FieldType::Timestamp),
                                          column("key", FieldType::String)};
  return columns;
}

const std::vector<Field>& batch_columns() {
  static const std::vector<Field> columns{column("_batch_id", FieldType::BigInt),
                                          column("_ingested_at", FieldType::Timestamp)};
  return columns;
}

const std::vector<Field>& lineage_columns() {
  static const std::vector<Field> columns = [] {
    std::vector<Field> all = kafka_columns();
    all.insert(all.end(), batch_columns().begin(), batch_columns().end());
    return all;
  }();
  return columns;
}

bool is_lineage_column(const std::string& name) {
  for (const auto& c : lineage_columns())
    if (c.name == name) return true;
  return false;
}

}  // namespace lakestream
