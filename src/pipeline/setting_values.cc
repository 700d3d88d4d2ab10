#include "pipeline/setting_values.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "pipeline/env_vars.h"

namespace lakestream {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(const std::string& text) {
  size_t begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return "";
  size_t end = text.find_last_not_of(" \t\r\n");
  return text.substr(begin, end - begin + 1);
}

bool is_identifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string expanded(const TomlSection& section, const std::string& name, const std::string& value) {
  ExpandedText result = expand_env_vars(value);
  if (!result.problem.empty()) section.fail(name, result.problem);
  return result.text;
}

std::string read_group_name(const TomlSection& section) {
  std::string group = section.required_string("group", "name the consumer group the workers share, e.g. \"shop-ingest\"");
  static const std::regex valid("[A-Za-z0-9._-]{1,200}");
  if (!std::regex_match(group, valid))
    section.fail("group", "'" + group + "' is not a group name: use 1 to 200 letters, digits, '.', '_' or '-'");
  return group;
}

std::string read_column_mapping(const TomlSection& section) {
  std::string mode = section.required_string(
      "column_mapping", "set column_mapping = \"none\", \"name\" (columns renamed or dropped without a rewrite) or \"id\"");
  if (mode != "none" && mode != "name" && mode != "id")
    section.fail("column_mapping", "'" + mode + "' is not a column mapping mode; write \"none\", \"name\" (the files "
                 "keep each column under a fixed physical name) or \"id\" (as name, and readers find columns by "
                 "Parquet field id, as Iceberg does)");
  return mode;
}

}  // namespace lakestream
