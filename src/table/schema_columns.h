// Looking up a column of a Delta table's schema by name.
#pragma once

#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream::delta {

// The column named `name`, or nullptr.
const Column* find_column(const std::vector<Column>& columns, const std::string& name);

inline bool has_column(const std::vector<Column>& columns, const std::string& name) {
  return find_column(columns, name) != nullptr;
}

}  // namespace lakestream::delta
