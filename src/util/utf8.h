// UTF-8 validation for raw Kafka bytes: DuckDB's VARCHAR (and so JSON parsing) requires valid
// UTF-8, so invalid records are told apart before they reach SQL and quarantined, not lost.
#pragma once

#include <cstddef>

namespace lakestream {

// True when [data, data+size) is well-formed UTF-8 (no overlongs, surrogates or values > U+10FFFF).
bool is_valid_utf8(const char* data, size_t size);

}  // namespace lakestream
