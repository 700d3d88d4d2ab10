#include "sinks/table_sink.h"

#include <ctime>

#include "table/commit_retry.h"
#include "table/schema_evolution.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/files.h"
#include "util/log_time.h"

namespace lakestream {

namespace {

// A batch planned by this run found in its table: only another runner of the stream puts it there.
[[noreturn]] void refuse_second_writer(const SinkCommit& sink, int64_t committed) {
  throw Error("table " + sink.table.path() + " already holds batch " + std::to_string(committed) + " of this stream " +
              "(txn " + sink.app_id + "), but this run planned batch " + std::to_string(sink.batch_id) +
              " just now: another runner of the same stream, on another machine, is writing to it. Only one "
              "runner per stream may run at a time: stop one of them. This run stops here; nothing was written "
              "twice, and the next run of the one left goes on from what is committed.");
}

}  // namespace

delta::Commit begin_commit(const delta::Snapshot& snapshot, const std::vector<delta::Column>& schema,
                           const std::vector<std::string>& partition_columns, const std::string& table_path,
                           const std::map<std::string, std::string>& properties) {
  delta::Commit commit(snapshot);
  if (!snapshot.exists()) {
    delta::Metadata meta;
    meta.id = new_uuid();
    meta.schema = schema;
    meta.partition_columns = partition_columns;
    meta.configuration = properties;
    meta.created_time = now_epoch_ms();
    commit.set_metadata(meta);
    return commit;
  }
  auto evolved = delta::evolve_schema(snapshot.metadata, schema, partition_columns, table_path);
  delta::Metadata meta = evolved ? *evolved : snapshot.metadata;
  bool changed = evolved.has_value();
  for (const auto& [key, value] : properties) {
    auto it = meta.configuration.find(key);
    if (it != meta.configuration.end() && it->second == value) continue;
    meta.configuration[key] = value;
    changed = true;
  }
  if (changed) commit.set_metadata(meta);
  return commit;
}

bool commit_once(const SinkCommit& sink, const std::function<void(delta::Commit&, const delta::Snapshot&)>& build) {
  CpuScope cpu_scope("commit_once");
  return delta::commit_with_retry("commit batch " + std::to_string(sink.batch_id) + " to " + sink.table.path(), [&] {
    // Each attempt looks again: the version another writer took may even hold this batch.
    delta::Snapshot snapshot = delta::load_snapshot(sink.table);
    int64_t committed = snapshot.txn_version(sink.app_id);
    if (committed >= sink.batch_id) {
      if (!sink.replay) refuse_second_writer(sink, committed);
      return false;
    }
    delta::Commit commit = begin_commit(snapshot, sink.schema, sink.partition_columns, sink.table.path(), sink.properties);
    build(commit, snapshot);
    commit.set_txn(sink.app_id, sink.batch_id);
    commit.set_operation(sink.operation);
    if (sink.record) commit.set_commit_info(commit_info_json(*sink.record));
    fault_point("before_delta_commit");
    commit.publish();
    fault_point("after_delta_commit");
    return true;
  });
}

}  // namespace lakestream
