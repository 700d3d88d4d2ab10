#include "storage/xml_fields.h"

#include <cstring>
#include <pugixml.hpp>

namespace lakestream::storage {
namespace {

pugi::xml_node find(const pugi::xml_node& from, const char* name) {
  return from.find_node([name](const pugi::xml_node& n) { return std::strcmp(n.name(), name) == 0; });
}

void collect(const pugi::xml_node& node, const char* item, const char* a, const char* b,
             std::vector<std::pair<std::string, std::string>>& out) {
  for (pugi::xml_node child : node.children()) {
    if (std::strcmp(child.name(), item) == 0)
      out.emplace_back(find(child, a).text().as_string(), find(child, b).text().as_string());
    else
      collect(child, item, a, b, out);
  }
}

}  // namespace

std::string xml_text(const std::string& xml, const char* name) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return "";
  return find(doc, name).text().as_string();
}

std::vector<std::pair<std::string, std::string>> xml_pairs(const std::string& xml, const char* item, const char* a,
                                                           const char* b) {
  std::vector<std::pair<std::string, std::string>> out;
  pugi::xml_document doc;
  if (doc.load_buffer(xml.data(), xml.size())) collect(doc, item, a, b, out);
  return out;
}

}  // namespace lakestream::storage
