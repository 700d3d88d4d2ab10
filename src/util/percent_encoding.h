// Percent-decoding (RFC 3986) of URL paths and query strings, for the HTTP servers and the stores.
#pragma once

#include <optional>
#include <string>

namespace lakestream {

// "%2F" -> "/"; a '%' not followed by two hex digits stays as it is. With `plus_is_space` (a query
// string as a browser's form sends it) '+' is a space too.
std::string percent_decoded(const std::string& text, bool plus_is_space = false);

// The decoded value of `name` in the query string of `target` ("/api/why?q=1006&mode=record");
// none when it is not there.
std::optional<std::string> query_value(const std::string& target, const std::string& name);

}  // namespace lakestream
