// What the readers of the pipeline file's sections share: a setting's ${VAR} expansion at its
// key, a consumer group's name, plain identifiers, and the columns ingest adds to every event
// (which no field or derived column may be named). Internal to the pipeline module.
#pragma once

#include <string>
#include <vector>

#include "pipeline/toml_section.h"

namespace lakestream {

std::string lower(std::string text);
// Without the spaces (and line ends) around it.
std::string trim(const std::string& text);
// Letters, digits and _, not starting with a digit: fit for a folder and a SQL identifier.
bool is_identifier(const std::string& name);

// `value` of setting `name` with each ${VAR} replaced from the environment; an error at the key
// when a variable is not set or not written as ${NAME}.
std::string expanded(const TomlSection& section, const std::string& name, const std::string& value);

// The `group` setting of `section`: a consumer group's name for ingest workers. Kafka allows up
// to 249 of [A-Za-z0-9._-] in a group id of its own tools' making; lakestream appends ".<stream>".
std::string read_group_name(const TomlSection& section);

// The `column_mapping` setting of `section` ([lake] or a stream): "none", "name" or "id".
std::string read_column_mapping(const TomlSection& section);

}  // namespace lakestream
