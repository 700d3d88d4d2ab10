// The subcommands of the lakestream binary. Each file of this folder adds one: it parses its
// arguments and calls the library, nothing more.
#pragma once

#include <CLI/CLI.hpp>

namespace lakestream::cli {

void add_broker_command(CLI::App& app);
void add_produce_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_query_command(CLI::App& app);
void add_check_command(CLI::App& app);
void add_recount_command(CLI::App& app);
void add_vacuum_command(CLI::App& app);
void add_demo_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_status_command(CLI::App& app);
void add_lateness_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_optimize_command(CLI::App& app);
void add_why_command(CLI::App& app);
void add_help_command(CLI::App& app);

// The exit status a command asks main() to return (CLI11 callbacks return nothing).
void set_exit_status(int status);

}  // namespace lakestream::cli
