#include "source/record_fingerprint.h"

#include <cstdint>
#include <cstdio>

namespace lakestream {

namespace {

constexpr uint64_t kFnvOffset = 14695981039346656037ULL;
constexpr uint64_t kFnvPrime = 1099511628211ULL;

void mix(uint64_t& hash, const void* bytes, size_t size) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (size_t i = 0; i < size; i++) {
    hash ^= p[i];
    hash *= kFnvPrime;
  }
}

// A length, then the bytes; a missing key or value (nullptr) hashes apart from an empty one.
void mix_field(uint64_t& hash, const char* bytes, size_t size) {
  int64_t length = bytes ? static_cast<int64_t>(size) : -1;
  mix(hash, &length, sizeof length);
  if (bytes) mix(hash, bytes, size);
}

}  // namespace

std::string record_fingerprint(const KafkaRecord& record) {
  uint64_t hash = kFnvOffset;
  int64_t timestamp = record.timestamp_ms;
  mix(hash, &timestamp, sizeof timestamp);
  mix_field(hash, record.key, record.key_size);
  mix_field(hash, record.value, record.value_size);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace lakestream
