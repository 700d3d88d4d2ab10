#include "streams/table_source.h"

#include "table/parquet_file.h"
#include "util/error.h"

namespace lakestream {

TableChanges read_table_changes(const std::string& table_path, int64_t from_version, int64_t to_version) {
  TableChanges changes;
  changes.from_version = from_version;
  changes.to_version = to_version;
  changes.shape = delta::load_snapshot(table_path, to_version);
  changes.shape.files.clear();
  if (to_version < from_version) return changes;
  for (auto& commit : delta::read_commits(table_path, from_version, to_version)) {
    for (const auto& removed : commit.removes)
      if (removed.data_change)
        throw Error("table " + table_path + " is not append-only: version " + std::to_string(commit.version) +
                    " deleted or rewrote rows (" + removed.path +
                    "). A latest or window stream reads an append-only table; read the table this one is built from, "
                    "or start the stream over with a new checkpoint.");
    for (auto& add : commit.adds) {
      if (!add.data_change) continue;  // compaction: the same rows again
      add.version = commit.version;
      changes.added.push_back(add);
    }
  }
  changes.shape.files = changes.added;
  return changes;
}

std::string changes_scan_sql(const TableChanges& changes) { return delta::scan_sql(changes.shape); }

}  // namespace lakestream
