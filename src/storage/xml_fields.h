// The few fields the object stores' XML answers (listings, upload ids, errors) carry, read with
// pugixml.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lakestream::storage {

// The text of the first element named `name` anywhere in `xml`; empty when there is none.
std::string xml_text(const std::string& xml, const char* name);

// For each element named `item`, the texts of its descendants `a` and `b` (e.g. Contents ->
// Key, Size in an S3 listing; Blob -> Name, Content-Length in an Azure one).
std::vector<std::pair<std::string, std::string>> xml_pairs(const std::string& xml, const char* item, const char* a,
                                                           const char* b);

}  // namespace lakestream::storage
