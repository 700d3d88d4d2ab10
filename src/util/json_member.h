// A member of a JSON object by reference, for code that walks a parsed document and keeps
// pointers into it (nlohmann's value() returns a copy): Avro schemas in the decoder and in the
// embedded registry's compatibility check. Header-only; its users link nlohmann_json.
#pragma once

#include <nlohmann/json.hpp>

namespace lakestream {

// `object[key]`, or a null when `object` is not an object or has no such member.
inline const nlohmann::json& json_member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json absent;
  if (!object.is_object()) return absent;
  auto it = object.find(key);
  return it == object.end() ? absent : *it;
}

}  // namespace lakestream
