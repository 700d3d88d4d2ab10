#include "source/json_lines.h"

#include <sstream>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace lakestream {

std::map<std::string, std::string> group_json_lines_by(const std::string& lines, const std::string& field) {
  std::map<std::string, std::string> groups;
  std::istringstream in(lines);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    number++;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto event = nlohmann::ordered_json::parse(line, nullptr, false);
    if (!event.is_object() || !event.contains(field))
      throw Error("line " + std::to_string(number) + " is not a JSON object with a \"" + field + "\" field");
    const auto& value = event[field];
    std::string group = value.is_string() ? value.get<std::string>() : value.dump();
    event.erase(field);
    groups[group] += event.dump() + "\n";
  }
  return groups;
}

}  // namespace lakestream
