// What the environment asks of the longer tests: the long variants, and counts that scripts
// raise (scripts/random-kills) above the suite's defaults.
#pragma once

#include <cstdlib>
#include <string>

namespace lakestream::testing {

// True when the environment asks for the long variants (LAKESTREAM_LONG_TESTS=1).
inline bool long_tests() {
  const char* v = std::getenv("LAKESTREAM_LONG_TESTS");
  return v && *v && std::string(v) != "0";
}

// A positive integer from the environment, or `fallback`.
inline int env_count(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v && std::atoi(v) > 0 ? std::atoi(v) : fallback;
}

}  // namespace lakestream::testing
