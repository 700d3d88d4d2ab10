// `lakestream demo`: plays the shop scenario from nothing on disk, on the embedded broker: for
// batch in 1 2 3 3 4 5, send it, run the three streams; then check. For a first look. With
// --lake URL the tables go to an object store (credentials from the standard variables).
#include <iostream>
#include <sstream>

#include "broker/embedded_broker.h"
#include "check/check.h"
#include "cli/commands.h"
#include "cli/shop_example.h"
#include "engine/lake_stores.h"
#include "engine/runner.h"
#include "source/json_lines.h"
#include "source/json_producer.h"
#include "table/table_files.h"
#include "util/error.h"
#include "util/files.h"

namespace lakestream::cli {

void add_demo_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("demo", "Play the shop scenario end to end on the embedded broker, then check it");
  auto dir = std::make_shared<std::string>("lakestream-demo");
  cmd->add_option("--dir", *dir, "the folder for the demo's pipeline, tables and checkpoints (wiped first)")->capture_default_str();
  auto lake = std::make_shared<std::string>();
  cmd->add_option("--lake", *lake,
                  "where the tables go instead of DIR/lake: an empty prefix of an object store, e.g. s3://bucket/demo "
                  "or az://container/demo (credentials and endpoint from AWS_* / AZURE_STORAGE_* variables)");
  cmd->callback([dir, lake] {
    std::string folder = absolute_path(*dir);
    prepare_owned_folder(folder, "demo");
    EmbeddedBroker broker({{"orders", 3}});
    std::string pipeline_text = kShopPipeline;
    std::string embedded = "bootstrap = \"embedded\"";
    auto at = pipeline_text.find(embedded);
    if (at != std::string::npos) pipeline_text.replace(at, embedded.size(), "bootstrap = \"" + broker.bootstrap() + "\"");
    if (!lake->empty()) {
      std::string tables = "tables = \"lake\"";
      pipeline_text.replace(pipeline_text.find(tables), tables.size(), "tables = \"" + *lake + "\"");
    }
    std::string pipeline_file = join_path(folder, "lakestream.toml");
    write_file_atomic(pipeline_file, pipeline_text);
    Pipeline pipeline = load_pipeline_with_stores(pipeline_file);
    // The demo starts from nothing; on a store it cannot wipe what is there, so it asks for an empty prefix.
    if (!lake->empty() && !delta::list_table_files(pipeline.tables_dir, "").empty())
      throw Error("--lake " + *lake + " already holds files (an earlier demo's tables?); the demo starts from nothing: "
                  "give an empty prefix, e.g. " + *lake + "-2, or delete what is there");

    std::cout << "lakestream demo: the shop scenario\n"
                 "  An embedded Kafka broker runs at " << broker.bootstrap() << " with topic orders (3 partitions).\n"
                 "  Three streams: read_orders (orders -> bronze_orders), latest_orders (-> orders, newest per order),\n"
                 "  hourly_sales (-> hourly_sales: placed orders per hour, watermark 1 hour, duplicates dropped).\n\n";
    auto batches = group_json_lines_by(kShopBatches, "batch");
    int sends = 0;
    for (const std::string batch : {"1", "2", "3", "3", "4", "5"}) {
      std::istringstream events(batches.at(batch));
      ProduceResult sent = produce_json_lines(pipeline.kafka, "orders", "order_id", events);
      if (sent.failed > 0) throw Error("the demo could not send batch " + batch + ": " + sent.first_error);
      ++sends;
      std::cout << "== send " << sends << ": batch " << batch << ", " << sent.delivered
                << (sent.delivered == 1 ? " event" : " events")
                << (sends == 4 ? " again (the shop's system resends after a timeout)" : "") << "\n";
      run_pipeline(pipeline, {}, std::cout);
      std::cout << "\n";
    }
    std::cout << "== lakestream check: every table recomputed from bronze\n";
    CheckResult result = check_pipeline(pipeline);
    std::cout << format_check(result) << "\n";
    std::cout << "The tables are Delta Lake tables in " << pipeline.tables_dir << "; look at them with\n"
              << "  lakestream query -p " << pipeline_file << " \"select * from hourly_sales order by hour\"\n"
              << "(any Delta reader works too: Spark, DuckDB's delta extension, delta-rs).\n";
    set_exit_status(result.exit_code());
  });
}

}  // namespace lakestream::cli
