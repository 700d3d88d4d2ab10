// Sizes as people write them: "128MB", "64 MiB", "1GB", "500kB", "4096" (bytes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace lakestream {

// Bytes for a size; units B, kB/KB, MB, GB (powers of 1024, as Delta's and Spark's sizes are)
// and KiB, MiB, GiB, any case, with an optional space. nullopt for anything else or a size <= 0.
std::optional<int64_t> parse_byte_size(const std::string& text);

// The size in the largest of GiB, MiB, KiB that divides it ("256 MiB", "2 GiB"), else in bytes
// ("1500 B"): what parse_byte_size reads back.
std::string format_byte_size(int64_t bytes);

}  // namespace lakestream
