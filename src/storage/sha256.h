// SHA-256 as lower-case hex (OpenSSL): S3's payload hash, and names derived from what they stand for.
#pragma once

#include <string>

namespace lakestream::storage {

std::string sha256_hex(const std::string& data);

}  // namespace lakestream::storage
