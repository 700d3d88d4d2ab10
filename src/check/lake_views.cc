#include "check/lake_views.h"

#include "table/parquet_file.h"

namespace lakestream {

std::map<std::string, delta::Snapshot> create_lake_views(sql::Connection& con, const Pipeline& pipeline) {
  std::map<std::string, delta::Snapshot> snapshots;
  for (const auto& table : pipeline.table_names()) {
    delta::Snapshot snapshot = delta::load_snapshot(pipeline.table_path(table));
    if (!snapshot.exists()) continue;
    con.exec("CREATE OR REPLACE TEMP VIEW " + sql::quote_ident(table) + " AS " + delta::scan_sql(snapshot));
    snapshots.emplace(table, std::move(snapshot));
  }
  return snapshots;
}

}  // namespace lakestream
