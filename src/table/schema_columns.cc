#include "table/schema_columns.h"

namespace lakestream::delta {

const Column* find_column(const std::vector<Column>& columns, const std::string& name) {
  for (const auto& c : columns)
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace lakestream::delta
