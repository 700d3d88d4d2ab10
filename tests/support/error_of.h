// For tests of error messages: what an action's Error says.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "util/error.h"

namespace lakestream::testing {

// Runs `action`, which must throw Error, and returns its message (a test failure if it does not throw).
template <typename F>
std::string error_of(F action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an Error";
  return "";
}

}  // namespace lakestream::testing
