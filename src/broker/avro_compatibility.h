// Whether one Avro schema can read data written with another, by Avro's schema resolution rules:
// the BACKWARD check of the embedded schema registry (a new version must read what the latest one
// wrote). Written from the Avro specification; logical types are read as their underlying types,
// as Avro's resolution does.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace lakestream {

// Why `reader` cannot read data written with `writer`, one line per problem ("field
// \"amount\": a long cannot be read as a string"); empty when it can. Both are parsed Avro
// schemas (JSON), well formed.
std::vector<std::string> avro_read_problems(const nlohmann::json& reader, const nlohmann::json& writer);

}  // namespace lakestream
