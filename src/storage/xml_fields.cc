#include "storage/xml_fields.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <pugixml.hpp>

namespace lakestream::storage {
namespace {

pugi::xml_node find(const pugi::xml_node& from, const char* name) {
  return from.find_node([name](const pugi::xml_node& n) { return std::strcmp(n.name(), name) == 0; });
}

void collect(const pugi::xml_node& node, const char* item, const std::vector<const char*>& fields,
             std::vector<std::vector<std::string>>& out) {
  for (pugi::xml_node child : node.children()) {
    if (std::strcmp(child.name(), item) == 0) {
      std::vector<std::string> record;
      for (const char* field : fields) record.emplace_back(find(child, field).text().as_string());
      out.push_back(std::move(record));
    } else {
      collect(child, item, fields, out);
    }
  }
}

}  // namespace

bool is_xml_named(const std::string& xml, const char* root) {
  pugi::xml_document doc;
  return doc.load_buffer(xml.data(), xml.size()) && std::strcmp(doc.document_element().name(), root) == 0;
}

std::string xml_text(const std::string& xml, const char* name) {
  pugi::xml_document doc;
  if (!doc.load_buffer(xml.data(), xml.size())) return "";
  return find(doc, name).text().as_string();
}

std::vector<std::vector<std::string>> xml_records(const std::string& xml, const char* item,
                                                  const std::vector<const char*>& fields) {
  std::vector<std::vector<std::string>> out;
  pugi::xml_document doc;
  if (doc.load_buffer(xml.data(), xml.size())) collect(doc, item, fields, out);
  return out;
}

int64_t parse_store_time_ms(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (!end) {
    tm = std::tm{};
    end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  }
  if (!end) return 0;
  int64_t ms = static_cast<int64_t>(timegm(&tm)) * 1000;
  if (*end == '.') ms += std::atoi(std::string(end + 1, std::min<size_t>(3, std::strlen(end + 1))).c_str());
  return ms;
}

}  // namespace lakestream::storage
