#include "streams/bronze_writer.h"

#include "pipeline/bronze_layout.h"
#include "sinks/lake_table.h"
#include "sinks/partition_commit.h"
#include "sinks/table_sink.h"
#include "sql/utc_date.h"
#include "streams/ingest_stream.h"  // bronze_columns, quarantine_columns
#include "table/delta_log_json.h"  // schema_string
#include "table/delta_types.h"
#include "table/parquet_file.h"
#include "util/cpu_profile.h"
#include "util/error.h"
#include "util/fault.h"
#include "util/log_time.h"

namespace lakestream {

BronzeWriter::BronzeWriter(const Pipeline& pipeline, const Stream& stream, const Source& source,
                           delta::LastPartition* last_partition)
    : pipeline_(pipeline),
      stream_(stream),
      source_(source),
      bronze_(lake_table(pipeline, stream.table)),
      quarantine_(lake_table(pipeline, stream.table + "_quarantine")),
      last_partition_(last_partition ? last_partition : &own_last_partition_) {}

std::vector<delta::Column> BronzeWriter::field_columns() const {
  std::vector<delta::Column> fields;
  delta::Snapshot bronze = delta::load_snapshot(bronze_);
  for (const auto& column : bronze.metadata.schema) {
    if (column.name == "partition") break;
    fields.push_back(column);
  }
  return fields;
}

namespace {

// Now, as the _ingested_at of a batch's rows.
std::string ingested_now() { return "make_timestamp(" + std::to_string(wall_clock_us()) + ")::TIMESTAMPTZ"; }

// A batch's rows (`rows_sql`) with the ingest columns: _batch_id, _ingested_at, then `extra`
// (", expression AS name, ..."), keeping the rows `condition` holds for ("": all).
std::string with_ingest_columns(const std::string& rows_sql, int64_t batch_id, const std::string& ingested_at,
                                const std::string& extra, const std::string& condition = "") {
  return "SELECT *, " + std::to_string(batch_id) + "::BIGINT AS _batch_id, " + ingested_at + " AS _ingested_at" +
         extra + " FROM (" + rows_sql + ")" + (condition.empty() ? "" : " WHERE " + condition);
}

}  // namespace

bool BronzeWriter::commit(sql::Connection& con, IngestBatch& records, const std::string& app_id, int64_t id,
                          const CommitRecord& record, bool replay, BatchReport& batch) {
  CpuScope cpu_scope("ingest.write_batch");
  std::string ingested_at = ingested_now();

  // Quarantine first, bronze last: each commit is skipped on a replay once it is in.
  if (batch.quarantined > 0) {
    std::string select = with_ingest_columns(records.quarantined_rows_sql(), id, ingested_at, "");
    SinkCommit sink;
    sink.table = quarantine_;
    sink.schema = quarantine_columns(source_);
    sink.app_id = app_id;
    sink.batch_id = id;
    sink.record = record;
    sink.replay = replay;
    sink.properties = pipeline_.table_properties(stream_);
    commit_once(sink, [&](delta::Commit& commit, const delta::Snapshot&) {
      commit.add(delta::write_data_file(con, quarantine_, commit.metadata_after(), select, sink.schema));
      fault_point("after_data_files");
    });
    fault_point("after_quarantine_commit");
  }
  std::string select = with_ingest_columns(records.good_rows_sql(), id, ingested_at, derived_columns_sql());
  SinkCommit sink;
  sink.table = bronze_;
  sink.schema = with_derived_columns(con, select, records.field_columns());
  sink.app_id = app_id;
  sink.batch_id = id;
  sink.record = record;
  sink.partition_columns = stream_.partition_by;
  sink.replay = replay;
  sink.properties = pipeline_.table_properties(stream_);
  bool written = commit_once(sink, [&](delta::Commit& commit, const delta::Snapshot&) {
    // The batch's good rows are all of `select`'s: output_rows counts them.
    if (batch.output_rows > 0)
      for (const auto& file : delta::write_partitioned_files(con, bronze_, commit.metadata_after(), select, sink.schema,
                                                             sink.partition_columns, last_partition_, batch.output_rows))
        commit.add(file);
    fault_point("after_data_files");
  });
  batch.already_committed = !written;
  return written;
}

void BronzeWriter::commit_per_partition(sql::Connection& con, IngestBatch& records,
                                        const std::map<int32_t, OffsetRange>& ranges, const CommitRecord& record,
                                        BatchReport& batch) {
  CpuScope cpu_scope("ingest.write_batch");
  std::string ingested_at = ingested_now();
  if (batch.quarantined > 0) {
    PartitionSink sink{quarantine_, stream_.name, quarantine_columns(source_), {}, record,
                       pipeline_.table_properties(stream_)};
    commit_partitions(sink, ranges, [&](const FirstOffsets& from, int64_t version, const delta::Metadata& table) {
      delta::AddFile file = delta::write_data_file(
          con, quarantine_, table,
          with_ingest_columns(records.quarantined_rows_sql(), version, ingested_at, "", rows_condition(from)), sink.schema);
      // Another owner may have committed every quarantined row of the batch already.
      return file.path.empty() ? std::vector<delta::AddFile>{} : std::vector<delta::AddFile>{file};
    });
    fault_point("after_quarantine_commit");
  }
  std::string derived = derived_columns_sql();
  PartitionSink sink{bronze_, stream_.name,
                     with_derived_columns(con, with_ingest_columns(records.good_rows_sql(), 0, ingested_at, derived),
                                          records.field_columns()),
                     stream_.partition_by, record, pipeline_.table_properties(stream_)};
  int64_t version = commit_partitions(sink, ranges, [&](const FirstOffsets& from, int64_t v, const delta::Metadata& table) {
    std::vector<delta::AddFile> files;
    if (batch.output_rows > 0)
      files = delta::write_partitioned_files(
          con, bronze_, table, with_ingest_columns(records.good_rows_sql(), v, ingested_at, derived, rows_condition(from)),
          sink.schema, sink.partition_columns);
    return files;
  });
  batch.batch_id = version;
  batch.already_committed = version < 0;
}

std::string BronzeWriter::derived_columns_sql() const {
  std::vector<std::string> instants = {arrival_column(source_columns(source_))};
  for (const auto& f : source_.schema.fields)
    if (f.duckdb_type() == "TIMESTAMPTZ") instants.push_back(f.name);
  std::string derived;
  for (const auto& [name, expression] : stream_.derived)
    derived += ", (" + sql::utc_date_without_icu(expression, instants) + ") AS " + sql::quote_ident(name);
  return derived;
}

std::vector<delta::Column> BronzeWriter::with_derived_columns(sql::Connection& con, const std::string& select,
                                                             const std::vector<delta::Column>& fields) const {
  std::vector<delta::Column> columns = bronze_columns(source_, fields);
  if (stream_.derived.empty()) return columns;
  std::string shape = delta::schema_string(fields);
  if (shape == derived_for_) {
    columns.insert(columns.end(), derived_columns_.begin(), derived_columns_.end());
    return columns;
  }
  sql::Rows described;
  try {
    described = con.query("DESCRIBE " + select);
  } catch (const Error& e) {
    std::string list;
    for (const auto& [name, expression] : stream_.derived) list += "\n  " + name + " = \"" + expression + "\"";
    throw Error("stream " + stream_.name + ": a derived column's expression does not run over the source's "
                "fields:" + list + "\n" + e.what() + "\nFix it under [streams." + stream_.name + ".derived].");
  }
  derived_columns_.clear();
  for (size_t r = columns.size(); r < described.size(); r++)
    derived_columns_.push_back({described.text(r, "column_name"),
                                delta::delta_type_of_duckdb(described.text(r, "column_type"),
                                                            "derived column " + described.text(r, "column_name")),
                                true});
  derived_for_ = shape;
  columns.insert(columns.end(), derived_columns_.begin(), derived_columns_.end());
  return columns;
}

}  // namespace lakestream
