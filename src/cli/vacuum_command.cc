// `lakestream vacuum [-p FILE] TABLE [--retain 7d] [--unsafe-retention] [--dry-run]`: deletes the
// files of a table that no version inside the retention, and no stream, still needs.
#include <iostream>

#include "cli/commands.h"
#include "engine/lake_stores.h"
#include "engine/lake_vacuum.h"
#include "util/error.h"
#include "util/plural.h"

namespace lakestream::cli {

void add_vacuum_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("vacuum", "Delete a table's data files and log files that no kept version or stream needs");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto table = std::make_shared<std::string>();
  auto retain = std::make_shared<std::string>();
  auto unsafe_retention = std::make_shared<bool>(false);
  auto dry_run = std::make_shared<bool>(false);
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("table", *table, "the table to vacuum")->required();
  cmd->add_option("--retain", *retain,
                  "how much history stays readable (time travel, slow readers); default: the table's "
                  "delta.deletedFileRetentionDuration, 7 days unless set");
  cmd->add_flag("--unsafe-retention", *unsafe_retention,
                "allow a --retain shorter than the table's retention (also for log files): only when nothing else "
                "reads or writes the table meanwhile");
  cmd->add_flag("--dry-run", *dry_run, "list what would be deleted, delete nothing");
  cmd->callback([=] {
    std::optional<int64_t> retain_ms;
    if (!retain->empty()) {
      auto retain_us = parse_duration_us(*retain);
      if (!retain_us)
        throw Error("--retain '" + *retain + "' is not a duration; write e.g. 7d, \"24 hours\", 90m");
      retain_ms = *retain_us / 1000;
    }
    delta::VacuumPlan plan = plan_table_vacuum(load_pipeline_with_stores(*pipeline_file), *table, retain_ms, *unsafe_retention);
    const char* verb = *dry_run ? "would delete" : "deleted";
    for (const auto& file : plan.data_files) std::cout << (*dry_run ? "would delete " : "delete ") << file << "\n";
    for (const auto& file : plan.log_files)
      std::cout << (*dry_run ? "would delete " : "delete ") << "_delta_log/" << file << "\n";
    for (const auto& file : plan.iceberg_files) std::cout << (*dry_run ? "would delete " : "delete ") << file << "\n";
    if (!*dry_run) run_vacuum(plan);
    std::cout << "vacuum " << *table << ": versions from " << plan.oldest_kept_version << " stay readable; " << verb
              << " " << counted(static_cast<int64_t>(plan.data_files.size()), "data file", "data files") << " ("
              << plan.data_bytes << " bytes) and "
              << counted(static_cast<int64_t>(plan.log_files.size()), "log file", "log files")
              << (plan.iceberg_files.empty()
                      ? std::string()
                      : ", and " + counted(static_cast<int64_t>(plan.iceberg_files.size()), "file", "files") +
                            " of older Iceberg views")
              << "\n";
  });
}

}  // namespace lakestream::cli
