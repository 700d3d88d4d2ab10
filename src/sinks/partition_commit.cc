#include "sinks/partition_commit.h"

#include "sinks/table_sink.h"
#include "table/commit_retry.h"
#include "util/error.h"
#include "util/fault.h"

namespace lakestream {

std::string partition_app_id(const std::string& stream, int32_t partition) {
  return stream + "-" + std::to_string(partition);
}

std::map<int32_t, int64_t> committed_positions(const delta::Snapshot& table, const std::string& stream) {
  std::map<int32_t, int64_t> positions;
  std::string prefix = stream + "-";
  for (const auto& [app_id, version] : table.txn_versions) {
    if (app_id.compare(0, prefix.size(), prefix) != 0) continue;
    std::string digits = app_id.substr(prefix.size());
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    positions[std::stoi(digits)] = version + 1;
  }
  return positions;
}

std::string rows_condition(const FirstOffsets& from) {
  if (from.empty()) return "false";
  std::string condition;
  for (const auto& [partition, offset] : from)
    condition += std::string(condition.empty() ? "" : " OR ") + "(partition = " + std::to_string(partition) +
                 " AND \"offset\" >= " + std::to_string(offset) + ")";
  return condition;
}

namespace {

bool same_columns(const std::vector<delta::Column>& a, const std::vector<delta::Column>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (a[i].name != b[i].name || a[i].type != b[i].type || a[i].metadata != b[i].metadata) return false;
  return true;
}

}  // namespace

int64_t commit_partitions(const PartitionSink& sink, const std::map<int32_t, OffsetRange>& ranges,
                          const std::function<std::vector<delta::AddFile>(const FirstOffsets& from, int64_t version,
                                                                           const delta::Metadata& table)>& write) {
  FirstOffsets written_from;
  int64_t written_for = -1;
  std::vector<delta::Column> written_as;  // the table's schema the files were written for
  std::vector<delta::AddFile> files;
  // A conflict at the log version with other partitions' commits is retried at the next version
  // without reading Kafka again.
  return delta::commit_with_retry("commit to " + sink.table.path(), [&]() -> int64_t {
    delta::Snapshot snapshot = delta::load_snapshot(sink.table);
    // What of each partition another owner has not committed yet.
    FirstOffsets from;
    for (const auto& [partition, range] : ranges) {
      int64_t committed = snapshot.txn_version(partition_app_id(sink.stream, partition));
      if (committed >= range.end - 1) continue;  // all of it is there (or, for a start mark, a later start)
      from[partition] = std::max(range.start, committed + 1);
    }
    if (from.empty()) return -1;
    int64_t version = snapshot.version + 1;
    delta::Commit commit =
        begin_commit(snapshot, sink.schema, sink.partition_columns, sink.table.path(), sink.properties);
    const delta::Metadata table = commit.metadata_after();
    // A retry that creates the table or adds columns again names them anew (column mapping's
    // physical names): the files are written again for them.
    if (from != written_from || version != written_for || !same_columns(table.schema, written_as)) {
      // Files of an earlier attempt stay unreferenced, for vacuum: another writer may be reading
      // the log while this one retries, and nothing points at them.
      files = write(from, version, table);
      written_from = from;
      written_for = version;
      written_as = table.schema;
      fault_point("after_data_files");
    }
    for (const auto& file : files) commit.add(file);
    for (const auto& [partition, first] : from)
      commit.set_txn(partition_app_id(sink.stream, partition), ranges.at(partition).end - 1);
    commit.set_operation("STREAMING UPDATE");
    CommitRecord record = sink.record;
    record.batch_id = version;  // the rows' _batch_id
    commit.set_commit_info(commit_info_json(record));
    fault_point("before_delta_commit");
    int64_t committed = commit.publish();
    fault_point("after_delta_commit");
    return committed;
  });
}

}  // namespace lakestream
