// Runs the interop check (tests/interop/read_tables.js: the Delta log validator written from
// PROTOCOL.md, and the parquet-wasm and nodejs-polars readers) over every table under a folder.
// Needs node and the readers scripts/setup installs into .deps/interop; without them it fails.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "support/shell.h"
#include "support/test_support.h"

namespace lakestream::testing {

// The check's exit status (0: every table valid and read alike) and its report.
inline std::pair<int, std::string> run_other_readers(const std::string& folder, bool log_only = false) {
  return run_shell("node '" + source_dir() + "/tests/interop/read_tables.js' " + (log_only ? "--log-only " : "") + "'" +
                   folder + "'");
}

// Every table under `folder` passes the validator and both readers.
inline void expect_other_readers_accept(const std::string& folder) {
  auto [status, report] = run_other_readers(folder);
  EXPECT_EQ(status, 0) << report;
}

}  // namespace lakestream::testing
