#include "checkpoint/definition_change.h"

namespace lakestream {

std::string definition_changes(const nlohmann::json& recorded, const nlohmann::json& now) {
  std::string changes;
  for (const auto& [setting, was] : recorded.items()) {
    nlohmann::json is = now.contains(setting) ? now.at(setting) : nlohmann::json();
    if (is == was) continue;
    if (was.is_object() && is.is_object()) {
      // A schema: name each field added, dropped or retyped.
      for (const auto& [field, type] : was.items())
        if (!is.contains(field)) changes += "\n  " + setting + "." + field + ": was " + type.dump() + ", now gone";
        else if (is.at(field) != type)
          changes += "\n  " + setting + "." + field + ": was " + type.dump() + ", now " + is.at(field).dump();
      // A field added is no change for the checkpoint: the tables evolve to hold it (Delta
      // schema evolution, table/schema_evolution.h), and the batches and state stay valid.
      continue;
    }
    changes += "\n  " + setting + ": was " + was.dump() + ", now " + is.dump();
  }
  return changes;
}

}  // namespace lakestream
