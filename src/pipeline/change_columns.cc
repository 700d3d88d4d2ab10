#include "pipeline/change_columns.h"

namespace lakestream {

const std::vector<Field>& change_columns() {
  static const std::vector<Field> columns = [] {
    std::vector<Field> fields;
    for (auto [name, type] : {std::pair{kChangeTypeColumn, FieldType::String}, std::pair{kCommitVersionColumn, FieldType::BigInt},
                              std::pair{kCommitTimestampColumn, FieldType::Timestamp}}) {
      Field field;
      field.name = name;
      field.type = type;
      fields.push_back(field);
    }
    return fields;
  }();
  return columns;
}

}  // namespace lakestream
