// lakestream: streaming ETL for the medallion pattern, Kafka to Delta Lake, exactly once.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/parse_errors.h"
#include "sql/duckdb.h"
#include "util/error.h"
#include "util/exit_with_parent.h"
#include "util/peak_memory.h"

namespace lakestream::cli {
namespace {
int exit_status = 0;
}
void set_exit_status(int status) { exit_status = status; }
}  // namespace lakestream::cli

int main(int argc, char** argv) {
  lakestream::report_peak_rss_at_exit();
  lakestream::exit_with_parent_if_asked();
  CLI::App app{"lakestream: streams Kafka events into Delta Lake tables (bronze, silver, gold), exactly once"};
  app.require_subcommand(1);
  // Before or after the command's own arguments (fallthrough): set when parsed, before any command runs.
  app.fallthrough();
  app.add_flag_function(
      "-v,--verbose", [](int64_t) { lakestream::sql::show_statements_in_errors(true); },
      "show the SQL statement behind a failed step (lakestream's own SQL)");
  app.set_version_flag("--version", "lakestream 0.1.0");
  lakestream::cli::add_broker_command(app);
  lakestream::cli::add_produce_command(app);
  lakestream::cli::add_run_command(app);
  lakestream::cli::add_query_command(app);
  lakestream::cli::add_check_command(app);
  lakestream::cli::add_recount_command(app);
  lakestream::cli::add_vacuum_command(app);
  lakestream::cli::add_optimize_command(app);
  lakestream::cli::add_demo_command(app);
  lakestream::cli::add_bench_command(app);
  lakestream::cli::add_status_command(app);
  lakestream::cli::add_lateness_command(app);
  lakestream::cli::add_why_command(app);
  lakestream::cli::add_replay_command(app);
  lakestream::cli::add_help_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return lakestream::cli::report_parse_error(app, e, std::cout, std::cerr);
  } catch (const lakestream::Error& e) {
    std::fflush(stdout);
    std::cerr << "lakestream: " << e.what() << "\n";
    return 1;
  }
  return lakestream::cli::exit_status;
}
