// `--memory-limit SIZE` of the commands that read a whole lake (check, recount): how much memory
// their DuckDB takes before it spills to $TMPDIR (sql/memory_budget.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

namespace lakestream::cli {

// Adds the option to `cmd`; the text it was given, empty when not.
std::shared_ptr<std::string> add_memory_limit_option(CLI::App* cmd);

// The bytes the option's text says, 0 (the default budget) when empty; Error for a size it
// cannot read.
int64_t memory_limit_bytes(const std::string& text);

}  // namespace lakestream::cli
