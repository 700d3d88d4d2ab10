// How names are escaped on the way into the table: Hive-style escaping of partition values in
// folder names, and the URL encoding of paths inside the Delta log (add/remove `path`).
#pragma once

#include <optional>
#include <string>

namespace lakestream::delta {

// The folder name part for one partition value, as Spark/Hive write it: characters that are
// special in paths (':', '/', '%', '=', space, ...) become %XX; a null (or empty) value becomes
// __HIVE_DEFAULT_PARTITION__.
std::string hive_escape_partition_value(const std::optional<std::string>& value);

// One folder name part, Hive-escaped: a partition column's name goes in escaped as values are (Spark
// does the same): `geo:region` becomes `geo%3Aregion`, so no path starts with what looks like a URI scheme.
std::string hive_escape_path_name(const std::string& name);

// The form a relative path takes in the Delta log: a URI path, so '%', spaces and non-ASCII bytes
// are %XX-encoded (the log of `a=b%3Ac` holds `a=b%253Ac`).
std::string url_encode_path(const std::string& path);

// The inverse of url_encode_path; a '%' not followed by two hex digits is kept as is.
std::string url_decode_path(const std::string& path);

}  // namespace lakestream::delta
