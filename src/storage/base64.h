// Base64 (RFC 4648, with padding), as the cloud APIs carry binary in text: Azure's account keys
// and signatures, Kinesis's record data.
#pragma once

#include <optional>
#include <string>

namespace lakestream::storage {

std::string base64_encode(const std::string& data);
// The bytes `text` encodes; none when it is not base64.
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace lakestream::storage
