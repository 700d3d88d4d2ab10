// Writing a classic checkpoint: the snapshot's actions go out as JSON lines (the same action JSON
// the commits use) and DuckDB turns them into Parquet with Spark's nested checkpoint schema, so
// Spark, delta-rs and DuckDB's delta extension can start from it as this reader does.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <mutex>

#include "sql/duckdb.h"
#include "table/checkpoint_schema.h"
#include "table/checkpoint_sidecars.h"
#include "table/delta_log_json.h"
#include "table/delta_table.h"
#include "table/log_database.h"
#include "table/log_files.h"
#include "table/table_features.h"
#include "table/table_files.h"
#include "table/vacuum.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"
#include "util/log_time.h"

namespace lakestream::delta {

namespace {

std::string checkpoint_key(int64_t version) {
  char name[64];
  std::snprintf(name, sizeof name, "_delta_log/%020lld.checkpoint.parquet", static_cast<long long>(version));
  return name;
}

}  // namespace

int64_t checkpoint_interval(const Metadata& metadata) {
  auto it = metadata.configuration.find("delta.checkpointInterval");
  if (it == metadata.configuration.end()) return 10;
  try {
    int64_t interval = std::stoll(it->second);
    return interval > 0 ? interval : 10;
  } catch (const std::exception&) {
    return 10;
  }
}

void write_checkpoint(const Table& wanted, int64_t version) {
  // A table with v2 checkpoints gets a classic-named checkpoint of the v2 spec (a
  // checkpointMetadata action), its file actions in sidecars (table/checkpoint_sidecars.h); any
  // other a classic one with every live add and unexpired tombstone in it.
  const Snapshot shape = load_table_shape(wanted, version);
  const bool v2_spec = has_feature(Protocol{shape.min_reader_version, shape.min_writer_version, shape.reader_features,
                                            shape.writer_features},
                                   "v2Checkpoint");
  const Snapshot snapshot = load_snapshot(wanted, version, v2_spec ? Tombstones::kLeaveOut : Tombstones::kInclude);
  const Table& table = snapshot.table;
  const int64_t now = now_epoch_ms();

  Protocol protocol{snapshot.min_reader_version, snapshot.min_writer_version, snapshot.reader_features,
                    snapshot.writer_features};
  std::string lines = protocol_action(protocol).dump() + "\n";
  if (v2_spec) lines += nlohmann::json{{"checkpointMetadata", {{"version", version}}}}.dump() + "\n";
  lines += metadata_action(snapshot.metadata).dump() + "\n";
  for (const auto& [app_id, txn_version] : snapshot.txn_versions) {
    auto last = snapshot.txn_last_updated.find(app_id);
    auto last_updated = last == snapshot.txn_last_updated.end() ? std::nullopt : std::optional<int64_t>(last->second);
    lines += txn_action(app_id, txn_version, last_updated).dump() + "\n";
  }
  // The domains in force (clustering columns, row tracking's high-water mark, ...) go on.
  for (const auto& [domain, configuration] : snapshot.domains)
    lines += domain_metadata_action(domain, configuration).dump() + "\n";
  int64_t actions = static_cast<int64_t>(std::count(lines.begin(), lines.end(), '\n'));
  if (v2_spec) {
    int64_t in_sidecars = 0;
    lines += checkpoint_with_sidecars(snapshot, in_sidecars);
    actions += in_sidecars;
  } else {
    for (const auto& file : snapshot.files) lines += add_action(file).dump() + "\n";
    const int64_t expired_before = now - deleted_file_retention_ms(snapshot.metadata);
    for (const auto& removed : snapshot.tombstones)
      if (removed.deletion_timestamp >= expired_before) lines += remove_action(removed).dump() + "\n";
    actions = static_cast<int64_t>(std::count(lines.begin(), lines.end(), '\n'));
  }

  const std::string key = checkpoint_key(version);
  const std::string final_path = join_path(table.path(), key);
  const bool remote = table.is_remote();
  // Locally DuckDB writes beside the final name and a rename publishes it; for a table on an
  // object store it writes into the cache's staging folder and one PUT publishes it whole.
  std::string parquet_path = remote ? staging_path(table, key) : final_path + "." + new_uuid() + ".tmp";
  std::string json_path = parquet_path + "." + new_uuid() + ".json.tmp";
  write_file_atomic(json_path, lines);
  try {
    std::unique_lock<std::mutex> turn;
    sql::Connection& con = LogDatabase::instance().connection(turn);
    con.exec("COPY (SELECT txn, \"add\", remove, metaData, protocol" + std::string(v2_spec ? ", checkpointMetadata, sidecar" : "") +
             std::string(snapshot.domains.empty() ? "" : ", domainMetadata") +
             " FROM read_json(" + sql::quote_literal(json_path) +
             ", format = 'newline_delimited', columns = " + kCheckpointColumns + ")) TO " +
             sql::quote_literal(parquet_path) + " (FORMAT parquet, COMPRESSION zstd)");
    turn.unlock();
    fault_point("before_checkpoint_rename");
    if (remote) {
      publish_staged_file(table, key, parquet_path);
    } else {
      std::filesystem::rename(parquet_path, final_path);
      sync_dir(log_dir(table.path()));
    }
  } catch (const std::exception& e) {
    remove_all(json_path);
    remove_all(parquet_path);
    throw Error("cannot write the checkpoint of version " + std::to_string(version) + " of table " + table.path() + ": " +
                e.what());
  }
  remove_all(json_path);
  nlohmann::json hint = {{"version", version}, {"size", actions}};
  put_table_file(table, "_delta_log/_last_checkpoint", hint.dump() + "\n");
}

}  // namespace lakestream::delta
