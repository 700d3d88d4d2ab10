// The one error type of lakestream: a message written for the user, saying what went wrong and
// what to do about it. The CLI prints it as is; library code throws it, never exits.
#pragma once

#include <stdexcept>
#include <string>

namespace lakestream {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// A concurrent writer committed the Delta version this writer wanted (put-if-absent lost).
class CommitConflict : public Error {
 public:
  using Error::Error;
};

}  // namespace lakestream
