// The few fields the object stores' XML answers (listings, upload ids, errors) carry, read with
// pugixml.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace lakestream::storage {

// True when `xml` parses and its root element is named `root` (a listing is ListBucketResult on
// S3, EnumerationResults on Azure): an answer that is not cannot be read as an empty listing.
bool is_xml_named(const std::string& xml, const char* root);

// The text of the first element named `name` anywhere in `xml`; empty when there is none.
std::string xml_text(const std::string& xml, const char* name);

// For each element named `item`, the texts of its first descendants named `fields`, in that
// order (e.g. Contents -> Key, Size, LastModified in an S3 listing; Blob -> Name,
// Content-Length, Last-Modified in an Azure one); "" for a field it lacks.
std::vector<std::vector<std::string>> xml_records(const std::string& xml, const char* item,
                                                  const std::vector<const char*>& fields);

// Milliseconds since the epoch of an HTTP date ("Wed, 09 Sep 2009 09:20:02 GMT") or an ISO-8601
// UTC time ("2009-10-12T17:50:30.000Z"); 0 when it is neither.
int64_t parse_store_time_ms(const std::string& text);

}  // namespace lakestream::storage
