// What changed in a stream's definition since its checkpoint recorded it. A checkpoint's batches,
// state and txn ids only mean something for the definition they were made with, so any change
// of a recorded setting is refused instead of silently mixing two definitions in one table.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace lakestream {

// One line per setting whose value differs ("  window_us: was 3600000000, now 7200000000"), empty
// when none does. Settings `recorded` lacks (written by an older lakestream) are not compared.
std::string definition_changes(const nlohmann::json& recorded, const nlohmann::json& now);

}  // namespace lakestream
