// Command-line mistakes told in lakestream's own voice ("lakestream query: the SQL query is
// missing"), with the command's usage, instead of CLI11's exception names and capitals.
#pragma once

#include <ostream>

#include <CLI/CLI.hpp>

namespace lakestream::cli {

// Prints what `e` (thrown by app.parse) says is wrong, and the usage of the command it is about;
// help and --version requests are printed as CLI11 does. Returns the exit status: 0 for those, 2
// for a mistake.
int report_parse_error(CLI::App& app, const CLI::ParseError& e, std::ostream& out, std::ostream& err);

}  // namespace lakestream::cli
