// Grouping JSON lines by a field, for event files that say which batch each event belongs to
// (the shop scenario's `batch`): the demo and the tests send one group at a time.
#pragma once

#include <map>
#include <string>

namespace lakestream {

// Splits JSON lines (blank lines skipped) into groups by the text of `field`, removing that field
// from each line and keeping the others in their order. Throws Error on a line that is not a JSON
// object or lacks the field.
std::map<std::string, std::string> group_json_lines_by(const std::string& lines, const std::string& field);

}  // namespace lakestream
