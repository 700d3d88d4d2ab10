// `lakestream optimize [-p FILE] [--target-size 128MB] TABLE`: compacts a table's small files.
#include <algorithm>
#include <iostream>

#include "cli/commands.h"
#include "engine/auto_compaction.h"
#include "engine/lake_stores.h"
#include "pipeline/did_you_mean.h"
#include "pipeline/pipeline.h"
#include "sinks/lake_table.h"
#include "sql/duckdb.h"
#include "table/compaction.h"
#include "util/byte_size.h"
#include "util/error.h"
#include "util/plural.h"

namespace lakestream::cli {

void add_optimize_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("optimize", "Compact a table's small files into files of a target size (dataChange=false)");
  auto pipeline_file = std::make_shared<std::string>("lakestream.toml");
  auto target = std::make_shared<std::string>("128MB");
  auto table = std::make_shared<std::string>();
  cmd->add_option("-p,--pipeline", *pipeline_file, "the pipeline file")->capture_default_str();
  cmd->add_option("--target-size", *target, "the size of the files to make, e.g. 128MB, 1GB")->capture_default_str();
  cmd->add_option("table", *table, "the table to compact")->required();
  cmd->callback([pipeline_file, target, table] {
    Pipeline pipeline = load_pipeline_with_stores(*pipeline_file);
    auto names = pipeline.table_names();
    if (std::find(names.begin(), names.end(), *table) == names.end()) {
      std::string list;
      for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
      throw Error("table '" + *table + "' is not written by any stream of " + pipeline.path + " (its tables: " + list +
                  ")" + did_you_mean(*table, names));
    }
    auto bytes = parse_byte_size(*target);
    if (!bytes) throw Error("--target-size '" + *target + "' is not a size; write e.g. 128MB, 64MiB, 1GB");
    sql::Database db;
    sql::Connection con(db);
    auto result = delta::compact_table(con, lake_table(pipeline, *table), *bytes, keeps_seen_batches(pipeline, *table));
    if (result.version < 0) {
      std::cout << "optimize: " << *table << " has fewer than two small files in any partition, so nothing was merged\n";
      return;
    }
    std::cout << "optimize: " << *table << " version " << result.version << ": "
              << counted(result.files_removed, "file", "files") << " (" << result.bytes_removed << " bytes) -> "
              << counted(result.files_added, "file", "files") << " (" << result.bytes_added
              << " bytes), dataChange=false\n";
  });
}

}  // namespace lakestream::cli
